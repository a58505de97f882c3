/// The rules a new login follows over what a profile remembers.
extension ProfileSettings {
    /// The client configuration a login for `issuer` starts from: the remembered one when it is for
    /// the same issuer, else a new one. Settings never carry over to another issuer — an endpoint
    /// override remembered for one provider would send the next provider's codes elsewhere.
    package static func startingConfiguration(remembered: ProfileSettings?, issuer: String, clientID: String) -> ClientConfiguration {
        var client =
            remembered.flatMap { $0.client.issuer == issuer ? $0.client : nil }
            ?? ClientConfiguration(issuer: issuer, clientID: clientID)
        client.issuer = issuer
        client.clientID = clientID
        return client
    }

    /// The key source for a login asking for `requested` (nil: keep what is remembered, else machine).
    /// The key source is fixed at the first login: while a token file exists, another one is refused,
    /// since the file could no longer be opened.
    package static func keySource(
        requested: KeySource?, remembered: ProfileSettings?,
        tokenFileExists: Bool
    ) throws(ProfileRuleViolation) -> KeySource {
        guard let requested else { return remembered?.keySource ?? .machine }
        if let remembered, remembered.keySource != requested, tokenFileExists {
            throw .keySourceFixed(current: remembered.keySource, requested: requested)
        }
        return requested
    }
}

/// A login that a profile's rules refuse.
package enum ProfileRuleViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// The profile's token file is encrypted under `current`; `requested` cannot open it.
    case keySourceFixed(current: KeySource, requested: KeySource)

    /// One line.
    package var description: String {
        switch self {
        case .keySourceFixed(let current, _): return "the profile already uses key source '\(current.name)'"
        }
    }
}
