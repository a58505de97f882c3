import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey status`: what the profile is and whether it is signed in. No network. Exit 3 when
/// not signed in (after printing what is known).
enum StatusCommand {
    static func run(_ context: CommandContext) throws -> Int32 {
        if try context.arguments.choice(.format, ["text", "openmetrics"], default: "text") == "openmetrics" {
            return try StatusMetrics.run(context)
        }
        if context.arguments.has(.allProfiles) {
            throw UsageError("--all-profiles needs --format openmetrics", command: .status)
        }
        let access = ProfileAccess(context)
        let settings = try access.profiles.load(access.profile)
        var session: StoredSession?
        var storePaths: (tokens: String, lock: String, machineKey: String)?
        var lastRefresh: RefreshAttempt?
        if let settings {
            let store = try access.tokenStore(settings)
            storePaths = (store.tokenFilePath, store.lockFilePath, store.machineKeyPath)
            session = try store.load()
            lastRefresh = store.lastRefresh()
        }
        let now = Timestamp.now()
        let status = SessionStatus(session: session, lastRefresh: lastRefresh, at: now)
        if context.globals.json {
            context.console.outLine(
                json(access: access, settings: settings, session: session, status: status, paths: storePaths).jsonText)
        } else {
            context.console.out(
                human(access: access, settings: settings, session: session, status: status, paths: storePaths, now: now))
        }
        guard session != nil else {
            let failure = CommandFailure.notSignedIn(profile: access.profile)
            // The JSON already says so; the error line still goes to stderr for people and logs.
            throw failure
        }
        return 0
    }

    /// The JSON status: `status` decides what is valid, held and bound; `session` gives the
    /// rest as stored (issuer, scope, acr, times).
    static func json(
        access: ProfileAccess, settings: ProfileSettings?, session: StoredSession?, status: SessionStatus,
        paths: (tokens: String, lock: String, machineKey: String)?
    ) -> JSONValue {
        var o = JSONObject()
        o["profile"] = .string(access.profile)
        o["signed_in"] = .bool(status.signedIn)
        o["issuer"] = (session?.issuer ?? settings?.client.issuer).map(JSONValue.string) ?? .null
        o["client_id"] = (session?.clientID ?? settings?.client.clientID).map(JSONValue.string) ?? .null
        o["subject"] = status.subject.map(JSONValue.string) ?? .null
        o["scope"] = session?.token.scope.map(JSONValue.string) ?? .null
        // When the ID token has them (OIDC Core §2): what a resource's step-up asks about.
        if let acr = session?.authenticationContext { o["acr"] = .string(acr) }
        if let authTime = session?.authenticationTime { o["auth_time"] = .string(RFC3339.format(authTime)) }
        o["access_token_expires_at"] = status.accessTokenExpiresAt.map { .string(RFC3339.format($0)) } ?? .null
        o["access_token_valid"] = .bool(status.accessTokenValid)
        o["refresh_token"] = .bool(status.refreshTokenHeld)
        o["id_token"] = .bool(status.idTokenHeld)
        o["updated_at"] = session.map { .string(RFC3339.format($0.updatedAt)) } ?? .null
        o["key_source"] = settings.map { .string($0.keySource.name) } ?? .null
        var files = JSONObject()
        files["state_dir"] = .string(access.stateDirectory)
        files["profile"] = .string(access.profiles.path(for: access.profile))
        if let paths {
            files["tokens"] = .string(paths.tokens)
            files["lock"] = .string(paths.lock)
            if settings?.keySource == .machine { files["machine_key"] = .string(paths.machineKey) }
        }
        if let key = settings?.clientKeyFile { files["client_key"] = .string(key) }
        if let file = settings?.clientAssertionFile { files["client_assertion"] = .string(file) }
        if let file = settings?.assertionFile { files["assertion"] = .string(file) }
        o["files"] = .object(files)
        o["token_binding"] = status.binding.map { .string($0.rawValue) } ?? .null
        o["ca_file"] = settings?.caFile.map(JSONValue.string) ?? .null
        // The last refresh attempt, failed ones too: a full disk leaves no other trace.
        o["last_refresh"] =
            status.lastRefresh.map { attempt in
                .object(
                    JSONObject([
                        ("at", .string(RFC3339.format(attempt.at))), ("ok", .bool(attempt.failure == nil)),
                        ("error", attempt.failure.map(JSONValue.string) ?? .null)
                    ]))
            } ?? .null
        return .object(o)
    }

    /// The text status, from the same `status` (`now` only words how long is left).
    static func human(
        access: ProfileAccess, settings: ProfileSettings?, session: StoredSession?, status: SessionStatus,
        paths: (tokens: String, lock: String, machineKey: String)?, now: Timestamp
    ) -> String {
        var rows: [(String, String)] = [("profile", access.profile)]
        if let settings {
            rows.append(("issuer", session?.issuer ?? settings.client.issuer))
            rows.append(("client_id", session?.clientID ?? settings.client.clientID))
        }
        if let session {
            rows.append(("subject", status.subject ?? "(none: no ID token)"))
            if let acr = session.authenticationContext { rows.append(("acr", acr)) }
            if let authTime = session.authenticationTime { rows.append(("auth_time", RFC3339.format(authTime))) }
            if let expiresAt = status.accessTokenExpiresAt {
                let left = expiresAt.timeIntervalSince(now)
                rows.append(
                    (
                        "access token",
                        status.accessTokenValid
                            ? "valid until \(RFC3339.format(expiresAt)) (\(DurationText.describe(left)) left)"
                            : "expired at \(RFC3339.format(expiresAt))"
                    ))
            } else {
                rows.append(("access token", "held, no expiry given"))
            }
            rows.append(("refresh token", status.refreshTokenHeld ? "held" : "none"))
            if let lastRefresh = status.lastRefresh {
                rows.append(
                    (
                        "last refresh",
                        lastRefresh.failure.map { "failed at \(RFC3339.format(lastRefresh.at)): \($0)" }
                            ?? "succeeded at \(RFC3339.format(lastRefresh.at))"
                    ))
            }
            if let binding = status.binding { rows.append(("token binding", binding.rawValue)) }
            if let scope = session.token.scope { rows.append(("scope", scope)) }
        } else {
            rows.append(("signed in", "no"))
        }
        if let settings { rows.append(("key source", settings.keySource.name)) }
        rows.append(("state dir", access.stateDirectory))
        rows.append(("profile file", access.profiles.path(for: access.profile)))
        if let paths {
            rows.append(("token file", paths.tokens))
            if settings?.keySource == .machine { rows.append(("machine key", paths.machineKey)) }
        }
        if let key = settings?.clientKeyFile { rows.append(("client key", key)) }
        if let file = settings?.clientAssertionFile { rows.append(("client assertion", file)) }
        if let file = settings?.assertionFile { rows.append(("assertion", file)) }
        if let ca = settings?.caFile { rows.append(("ca file", ca)) }
        let width = rows.map(\.0.count).max() ?? 0
        // Issuer, subject and scope come from the server; every value is sanitised alike.
        return rows.map { $0.0 + ":" + String(repeating: " ", count: width - $0.0.count + 1) + TerminalText.singleLine($0.1) + "\n" }
            .joined()
    }
}
