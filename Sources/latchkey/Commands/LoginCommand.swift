import Latchkey
import LatchkeyCrypto

/// `latchkey login`: signs in with the device flow (default), the loopback browser flow or the
/// paste flow, then remembers the profile's settings. Human output on stderr; `--json` events on
/// stdout.
enum LoginCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let args = context.arguments
        let flow = LoginFlow(rawValue: try args.choice("flow", LoginFlow.allCases.map(\.rawValue), default: "device"))!
        let wantsQR = args.has("qr") && (!args.has("no-qr") || args.isLater("qr", than: "no-qr"))
        let refusesQR = args.has("no-qr") && !wantsQR
        // QR codes only make sense for the device flow: the code flow's URL leads to this machine.
        let showQR = flow == .device && !refusesQR && !context.console.quiet
            && (wantsQR || (context.console.stderrIsTTY && !context.globals.json))
        let presenter = LoginPresenter(console: context.console, json: context.globals.json, showQR: showQR,
                                       openBrowser: args.has("open"), flow: flow)
        do {
            return try await signIn(context, flow: flow, presenter: presenter)
        } catch {
            presenter.failed(FailureReport(error))
            throw error
        }
    }

    static func signIn(_ context: CommandContext, flow: LoginFlow, presenter: LoginPresenter) async throws -> Int32 {
        let access = ProfileAccess(context)
        let existing = try access.profiles.load(access.profile)
        let settings = try settings(from: context, existing: existing, access: access)
        let timeout = try context.arguments.positiveSeconds("timeout")

        // Ask for a passphrase now, before the user approves anything, and ask twice.
        var fixedPassphrase: PassphraseProvider?
        if settings.keySource == .passphrase {
            let provider = try SecretInput.passphrase(context, confirm: true)
            guard let passphrase = try provider() else { throw TokenStoreError.passphraseRequired }
            fixedPassphrase = { passphrase }
        }
        let store = try access.tokenStore(settings, passphrase: fixedPassphrase)
        let session = try access.session(settings, store: store)
        let stdinIsTTY = context.console.stdinIsTTY
        let console = context.console
        let pasteReader: @Sendable () async throws -> String? = {
            if stdinIsTTY { console.info("Paste here: ") }
            return try await StandardInputLine.read()
        }
        _ = try await TerminationSignals.startWatching().run {
            try await session.signIn(flow: flow, timeout: timeout,
                                     offlineAccess: context.arguments.has("require-dpop-for-offline-access") ? .requireDPoP : .warn,
                                     pasteReader: flow == .paste ? pasteReader : nil,
                                     events: { presenter.handle($0) })
        }
        try access.profiles.save(settings, profile: access.profile)
        return 0
    }

    /// The settings to sign in with: the options given, over what the profile remembers.
    static func settings(from context: CommandContext, existing: ProfileSettings?, access: ProfileAccess) throws -> ProfileSettings {
        let args = context.arguments
        let profileHint = access.profile == "default" ? "" : " of profile '\(access.profile)'"
        guard let issuer = args.string("issuer") ?? existing?.client.issuer, !issuer.isEmpty else {
            throw UsageError("--issuer is required on the first login\(profileHint)", command: "login")
        }
        guard let clientID = args.string("client-id") ?? existing?.client.clientID, !clientID.isEmpty else {
            throw UsageError("--client-id is required on the first login\(profileHint)", command: "login")
        }
        var client = ProfileSettings.startingConfiguration(remembered: existing, issuer: issuer, clientID: clientID)
        if let scope = args.string("scope") {
            let scopes = scope.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            guard !scopes.isEmpty else { throw UsageError("--scope needs at least one scope", command: "login") }
            client.scopes = scopes
        }
        if let uri = args.string("redirect-uri") {
            guard uri.hasPrefix("http://") || uri.hasPrefix("https://") || uri.contains(":") else {
                throw UsageError("--redirect-uri must be an absolute URI, got '\(uri)'", command: "login")
            }
            client.redirectURI = uri
        }
        if args.has("pkce") {
            client.pkce = PKCEMode(rawValue: try args.choice("pkce", PKCEMode.allCases.map(\.rawValue), default: "auto"))!
        }
        if args.has("dpop") {
            client.dpop = DPoPMode(rawValue: try args.choice("dpop", DPoPMode.allCases.map(\.rawValue), default: "auto"))!
        }
        let secret = try SecretInput.clientSecret(context)
        if args.has("auth-method") {
            client.authMethod = ClientAuthMethod(rawValue: try args.choice(
                "auth-method", ClientAuthMethod.allCases.map(\.rawValue), default: "none"))!
        } else if secret != nil && client.authMethod == .none {
            client.authMethod = .clientSecretBasic
        }
        try ClientAssertionOptions.apply(args, existing: existing, to: &client)
        if (client.authMethod == .clientSecretBasic || client.authMethod == .clientSecretPost) && secret == nil {
            throw UsageError("--auth-method \(client.authMethod.rawValue) needs a client secret", command: "login",
                             hint: "give it with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET, never on the command line")
        }
        var endpoints = client.endpoints
        for (key, keyPath) in [("device-authorization-endpoint", \EndpointOverrides.deviceAuthorization),
                               ("token-endpoint", \EndpointOverrides.token),
                               ("authorization-endpoint", \EndpointOverrides.authorization),
                               ("revocation-endpoint", \EndpointOverrides.revocation),
                               ("jwks-uri", \EndpointOverrides.jwksURI)] {
            guard let value = args.string(key) else { continue }
            guard value.hasPrefix("https://") || value.hasPrefix("http://") else {
                throw UsageError("--\(key) must be an https URL, got '\(value)'", command: "login")
            }
            endpoints[keyPath: keyPath] = value
        }
        client.endpoints = endpoints

        var requested: KeySource?
        if let text = args.string("key-source") {
            guard let source = KeySource(name: text) else {
                throw UsageError("--key-source must be machine, passphrase, credential or file:PATH, got '\(text)'",
                                 command: "login")
            }
            requested = source
        }
        var settings = ProfileSettings(client: client, keySource: .machine)
        try rememberCredentialAndLogout(args, existing: existing, into: &settings)
        settings.clientKeyFile = try ClientAssertionOptions.keyFile(args, existing: existing, client: client)
        do {
            settings.keySource = try ProfileSettings.keySource(requested: requested, remembered: existing,
                                                               tokenFileExists: access.unlockedStore(existing).hasTokenFile)
            return settings
        } catch {
            switch error {
            case .keySourceFixed(let current, _):
                throw UsageError("profile '\(access.profile)' already uses key source '\(current.name)'", command: "login",
                                 hint: "the key source is fixed at the first login; run `latchkey logout` first, or use another --profile")
            }
        }
    }

    /// `--credential-host`, `--credential-username` and `--post-logout-redirect-uri`, over what the
    /// profile remembers. They end up in git's input or a URL, so line breaks and controls are refused.
    static func rememberCredentialAndLogout(_ args: ParsedArguments, existing: ProfileSettings?,
                                            into settings: inout ProfileSettings) throws {
        settings.credentialHost = existing?.credentialHost
        settings.credentialUsername = existing?.credentialUsername
        settings.postLogoutRedirectURI = existing?.postLogoutRedirectURI
        for (key, path) in [("credential-host", \ProfileSettings.credentialHost),
                            ("credential-username", \ProfileSettings.credentialUsername),
                            ("post-logout-redirect-uri", \ProfileSettings.postLogoutRedirectURI)] {
            guard let value = args.string(key) else { continue }
            guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
                throw UsageError("--\(key) must be non-empty, without spaces or control characters", command: "login")
            }
            settings[keyPath: path] = value
        }
        if let uri = settings.postLogoutRedirectURI, !(uri.hasPrefix("https://") || uri.hasPrefix("http://") || uri.contains(":")) {
            throw UsageError("--post-logout-redirect-uri must be an absolute URI, got '\(uri)'", command: "login")
        }
    }
}
