/// What sign-in does when a public client asks for `offline_access` without DPoP, so that its
/// refresh token would be a bearer secret on the device (the seed SDK refused it outright).
public enum OfflineAccessPolicy: Sendable, Equatable {
    /// Sign in, then report a `LoginEvent.offlineAccessWithoutDPoP` warning.
    case warn
    /// Refuse before anything is sent (`ConfigurationProblem.offlineAccessWithoutDPoP`); with
    /// `DPoPMode.auto` a `Bearer` answer is refused too.
    case requireDPoP

    /// True when `configuration` is a public client asking for `offline_access`.
    public static func applies(to configuration: ClientConfiguration) -> Bool {
        configuration.authMethod == .none && configuration.scopes.contains("offline_access")
    }
}
