import LatchkeyHTTP

/// How long before its expiry a cached access token counts as due for a refresh.
public enum RefreshMargin: Sendable, Equatable {
    /// `standardSeconds`, but half the lifetime of a token that lives less than that: a token that
    /// lives 30 s is refreshed when 15 s are left, not on every call. A token that lives 60 s or
    /// more keeps the 60 s margin (the contract's acceptance suite relies on a 70 s token being
    /// refreshed when 58 s are left), so the cap is only for the tokens it exists for.
    case standard
    /// Exactly this many seconds, whatever the lifetime (an explicit `--min-ttl`).
    case seconds(Double)
    /// A profile's remembered margin (`config set min-ttl`): this many seconds while that is less
    /// than the token's lifetime. A margin at least as long as the lifetime would refresh on every
    /// use, on every device the setting reached, so the standard rule applies then
    /// (`overrunsLifetime` tells a program to say so).
    case profileDefault(Double)

    /// The largest margin a profile may remember: a day. Longer would make every token due.
    public static let profileCeiling: Double = 86_400

    /// The standard margin for tokens that live long enough: 60 s.
    public static let standardSeconds: Double = 60

    /// The margin in seconds for `session`'s token. Its lifetime is counted from when it was
    /// obtained (`updatedAt`) to its expiry; a token without an expiry needs no margin.
    public func seconds(for session: StoredSession) -> Double {
        switch self {
        case .seconds(let seconds): return seconds
        case .profileDefault(let seconds):
            return overrunsLifetime(of: session) ? RefreshMargin.standard.seconds(for: session) : min(seconds, Self.profileCeiling)
        case .standard:
            guard let expiresAt = session.token.expiresAt else { return Self.standardSeconds }
            let lifetime = expiresAt.timeIntervalSince(session.updatedAt)
            return lifetime > 0 && lifetime < Self.standardSeconds ? lifetime / 2 : Self.standardSeconds
        }
    }
}

extension RefreshMargin {
    /// True for a profile's margin that is not less than `session`'s token lifetime (from when it
    /// was obtained to its expiry), which is then not used.
    public func overrunsLifetime(of session: StoredSession) -> Bool {
        guard case .profileDefault(let seconds) = self, let expiresAt = session.token.expiresAt else { return false }
        return min(seconds, Self.profileCeiling) >= expiresAt.timeIntervalSince(session.updatedAt)
    }
}

extension StoredSession {
    /// True when the access token is still good for `margin` at `now`.
    public func isFresh(at now: Timestamp, margin: RefreshMargin) -> Bool {
        token.isValid(at: now, minTTL: margin.seconds(for: self))
    }
}
