import Latchkey
import LatchkeyHTTP

/// `latchkey credential get|store|erase`: git's credential-helper protocol (`git help credential`).
/// The access token goes only to `protocol=https` and the profile's credential host; for any other
/// request nothing is printed and the exit code is 0, so git asks its next helper.
enum CredentialCommand {
    static let operations = ["get", "store", "erase"]

    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let operation = context.arguments.positionals.first, operations.contains(operation) else {
            throw UsageError("credential needs one of get, store or erase", command: .credential)
        }
        let request: CredentialRequest
        do { request = try CredentialRequest.parse(CredentialInput.read()) } catch {
            throw UsageError(
                error.description, command: .credential,
                hint: "the input must be git credential attributes, name=value per line")
        }
        // `store` has nothing to keep: the token file is the only store, written by login and refresh.
        if operation == "store" { return 0 }
        guard request.scheme != nil else { throw UsageError(CredentialRequestError.missing("protocol").description, command: .credential) }
        guard request.host != nil else { throw UsageError(CredentialRequestError.missing("host").description, command: .credential) }
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        guard request.isHTTPS(forHost: credentialHost(settings)) else {
            // git only says "could not read Username": with -v, say why this helper stayed silent.
            if context.globals.verbose {
                let asked = (request.scheme ?? "?") + "://" + (request.host ?? "?")
                context.console.error(
                    TerminalText.singleLine(
                        "* credential \(operation): no answer for \(asked): profile '\(access.profile)' "
                            + "answers only https://\(credentialHost(settings)) (login --credential-host, or `latchkey config set credential-host HOST`)"
                    ) + "\n")
            }
            return 0
        }
        let store = try access.tokenStore(settings)
        let session = try access.session(settings, store: store)
        if operation == "erase" {
            try await TerminationSignals.startWatching().run { try await session.markTokenStale(accessToken: request.value("password")) }
            return 0
        }
        let token = try TokenCommand.printable(
            try await TerminationSignals.startWatching().run {
                try await session.validToken(margin: TokenCommand.refreshMargin(nil, settings: settings))
            })
        if TokenBinding(token) == .dpop {
            // git sends the password as HTTP Basic, which has no room for a DPoP proof: handing the
            // token out would use a key-bound token as a bearer one (refused by a server that checks
            // the binding, and replayable at one that does not). Nothing on stdout, exit 0, so git
            // asks its next helper, and one line on stderr says why.
            context.console.warn(dpopRefusal(profile: access.profile))
            return 0
        }
        context.console.out(answer(token, username: settings.credentialUsername ?? "oauth2"))
        return 0
    }

    /// Why `get` gives git nothing for a DPoP-bound session, and the exact command that fixes it.
    static func dpopRefusal(profile: String) -> String {
        "credential get: profile '\(profile)' holds a DPoP-bound token, which git cannot send (HTTP Basic carries no DPoP proof); "
            + "no password given. Fix: \(TokenCommand.bearerLogin(profile: profile)) (a git profile is a Bearer profile)"
    }

    /// The lines git reads back: `username`, `password` and, when the token has an expiry,
    /// `password_expiry_utc` in Unix seconds (git then drops the password once it has expired).
    static func answer(_ token: Token, username: String) -> String {
        var text = "username=\(username)\npassword=\(token.accessToken)\n"
        if let expiresAt = token.expiresAt { text += "password_expiry_utc=\(expiresAt.epochSeconds)\n" }
        return text
    }

    /// `login --credential-host`, else the issuer's host with its port when one is written.
    static func credentialHost(_ settings: ProfileSettings) -> String {
        if let host = settings.credentialHost { return host }
        guard let issuer = HTTPURL(string: settings.client.issuer) else { return settings.client.issuer }
        return issuer.hostLiteral + (issuer.port.map { ":" + String($0) } ?? "")
    }
}
