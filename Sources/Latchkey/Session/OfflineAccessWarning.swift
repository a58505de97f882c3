extension OfflineAccessPolicy {
    /// True when signing in as `configuration` to `session` reports `.offlineAccessWithoutDPoP`
    /// (under `.warn`): a public client asked for offline_access, got a refresh token, and made no
    /// DPoP key for it. A program that remembers the warning (the CLI's profile) asks the same rule.
    public static func warns(_ configuration: ClientConfiguration, _ session: StoredSession) -> Bool {
        session.grant == .authorization && applies(to: configuration) && !configuration.dpop.uses(session.metadata)
            && session.token.refreshToken != nil
    }
}
