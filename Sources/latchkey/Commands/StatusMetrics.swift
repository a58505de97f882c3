import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// `latchkey status --format openmetrics [--all-profiles]`: the profiles' `SessionStatus` as
/// gauges for node_exporter's textfile collector. No network, never a prompt (a timer runs it),
/// and no token or secret: only times, flags, the binding and the profile names.
enum StatusMetrics {
    /// One profile's row: its status, or nil when its token file could not be read.
    struct Row {
        var profile: String
        var status: SessionStatus?
    }

    static func run(_ context: CommandContext) throws -> Int32 {
        let access = ProfileAccess(context)
        let names = context.arguments.has(.allProfiles) ? access.profiles.list() : [access.profile]
        let passphrase = try ProfilesCommand.nonInteractivePassphrase(context)
        let now = Timestamp.now()
        let rows = names.map { name in Row(profile: name, status: read(access, name, passphrase: passphrase, now: now)) }
        context.console.out(format(rows))
        return 0
    }

    /// The status of profile `name`; not signed in when it has no settings, nil when unreadable
    /// (a locked passphrase file, a damaged file).
    static func read(_ access: ProfileAccess, _ name: String, passphrase: @escaping PassphraseProvider, now: Timestamp) -> SessionStatus? {
        do {
            guard let settings = try access.profiles.load(name) else { return SessionStatus(session: nil, lastRefresh: nil, at: now) }
            let store = EncryptedFileTokenStore(
                stateDirectory: access.stateDirectory, profile: name, keySource: settings.keySource,
                environment: access.context.environment.subset(["CREDENTIALS_DIRECTORY"]), passphrase: passphrase)
            return SessionStatus(session: try store.load(), lastRefresh: store.lastRefresh(), at: now)
        } catch {
            return nil
        }
    }

    /// The exposition text for `rows`.
    static func format(_ rows: [Row]) -> String {
        var out = MetricsText()
        out.gauge(
            "latchkey_info", help: "The latchkey build and the mbedTLS linked into it.",
            [.init(labels: [("version", ToolVersion.number), ("mbedtls", MbedTLSInfo.version)], value: 1)])
        func each(_ value: (SessionStatus) -> Int64?) -> [MetricsText.Sample] {
            rows.compactMap { row in row.status.flatMap(value).map { .init(labels: [("profile", row.profile)], value: $0) } }
        }
        out.gauge(
            "latchkey_status_readable", help: "1 when the profile's files could be read (0: locked or damaged).",
            rows.map { .init(labels: [("profile", $0.profile)], value: $0.status == nil ? 0 : 1) })
        out.gauge("latchkey_signed_in", help: "1 when the profile holds a session.", each { $0.signedIn ? 1 : 0 })
        out.gauge("latchkey_access_token_valid", help: "1 when the access token has not expired.", each { $0.accessTokenValid ? 1 : 0 })
        out.gauge(
            "latchkey_access_token_expiry_timestamp_seconds", help: "When the access token expires, in Unix time.",
            each { $0.accessTokenExpiresAt?.epochSeconds })
        out.gauge(
            "latchkey_refresh_token_held", help: "1 when a refresh token is held.",
            each { $0.signedIn ? ($0.refreshTokenHeld ? 1 : 0) : nil })
        out.gauge(
            "latchkey_last_refresh_timestamp_seconds", help: "When the last refresh attempt ended, in Unix time.",
            each { $0.lastRefresh?.at.epochSeconds })
        out.gauge(
            "latchkey_last_refresh_success", help: "1 when the last refresh attempt succeeded, 0 when it failed.",
            each { $0.lastRefresh.map { $0.failure == nil ? 1 : 0 } })
        var bindings: [MetricsText.Sample] = []
        for row in rows {
            guard let binding = row.status?.binding else { continue }
            for value in TokenBinding.allCases {
                bindings.append(.init(labels: [("profile", row.profile), ("binding", value.rawValue)], value: value == binding ? 1 : 0))
            }
        }
        out.gauge("latchkey_token_binding", help: "1 for what the access token is bound to: none, dpop or mtls.", bindings)
        return out.text
    }
}
