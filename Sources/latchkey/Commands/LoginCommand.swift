import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// `latchkey login`: signs in with the device flow (default), the loopback browser flow, the
/// paste flow or CIBA, then remembers the profile's settings. Human output on stderr; `--json`
/// events on stdout.
enum LoginCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        var context = context
        let authentication = try authenticationRequirement(context.arguments)
        if let text = context.arguments.string(.resourceURL) {
            context = try await ResourceSignIn.resolving(context, resourceURL: text, command: .login)
        }
        return try await perform(context, authentication: authentication)
    }

    /// Signs in as the command line (perhaps completed by `ResourceSignIn`) says, asking
    /// `authentication` of the person's sign-in; `fetch --sign-in` comes here too.
    static func perform(_ context: CommandContext, authentication: AuthenticationRequirement) async throws -> Int32 {
        let args = context.arguments
        let flow = LoginFlow(rawValue: try args.choice(.flow, LoginFlow.allCases.map(\.rawValue), default: "device"))!
        let wantsQR = args.has(.qr) && (!args.has(.noQR) || args.isLater(.qr, than: .noQR))
        let refusesQR = args.has(.noQR) && !wantsQR
        // QR codes only make sense for the device flow: the code flow's URL leads to this machine.
        let showQR =
            flow == .device && !refusesQR && !context.console.quiet
            && (wantsQR || (context.console.stderrIsTTY && !context.globals.json))
        let backchannel = try backchannelRequest(args, flow: flow)
        let qrFile = try args.string(.qrFile).map { path throws -> QRImageFile in
            // Only the device flow has an address to scan: the code flow's leads back to this
            // machine, and CIBA has none (the person is asked on their own device).
            guard flow == .device else {
                throw UsageError("--qr-file is for the device flow, not --flow \(flow.rawValue)", command: .login)
            }
            return try QRImageFile(path: path)
        }
        let presenter = LoginPresenter(
            console: context.console, json: context.globals.json, showQR: showQR,
            openBrowser: args.has(.open), flow: flow, qrFile: qrFile)
        // The image of a code is never left behind: success, failure and SIGINT all come through here.
        defer { qrFile?.remove() }
        do {
            return try await signIn(
                context, flow: flow, presenter: presenter, backchannel: backchannel, authentication: authentication)
        } catch {
            presenter.failed(FailureReport(error))
            throw error
        }
    }

    /// `--login-hint` and `--binding-message`, which only CIBA takes, as the library's request.
    static func backchannelRequest(_ args: ParsedArguments, flow: LoginFlow) throws -> BackchannelAuthenticationRequest? {
        guard flow == .ciba else {
            for key in [OptionKey.loginHint, .bindingMessage] where args.has(key) {
                throw UsageError("\(key.longName) is for --flow ciba", command: .login)
            }
            return nil
        }
        guard let hint = args.string(.loginHint), !hint.isEmpty else {
            throw LoginProblemWording.error(.missingLoginHint)
        }
        let message = args.string(.bindingMessage)
        if let message, let problem = BackchannelAuthenticationRequest.bindingMessageProblem(message) {
            throw UsageError("--binding-message: \(problem.description)", command: .login)
        }
        do {
            return try BackchannelAuthenticationRequest(loginHint: hint, bindingMessage: message)
        } catch {
            throw UsageError("--login-hint: \(error.message)", command: .login)
        }
    }

    static func signIn(
        _ context: CommandContext, flow: LoginFlow, presenter: LoginPresenter,
        backchannel: BackchannelAuthenticationRequest?, authentication: AuthenticationRequirement
    ) async throws -> Int32 {
        let access = ProfileAccess(context)
        let existing = try access.profiles.load(access.profile)
        let settings = try settings(from: context, existing: existing, access: access)
        let timeout = try context.arguments.positiveSeconds(.timeout)
        presenter.issuer = settings.client.issuer
        if gitProfileTurnsDPoPOff(context.arguments, existing: existing) {
            presenter.warning(
                code: "credential_host_bearer",
                "--credential-host without --dpop: using --dpop never, since a git profile is a Bearer profile"
                    + " (git sends the token as HTTP Basic, which carries no DPoP proof)", note: true)
        }
        if existing?.offlineAccessWarned != true {
            presenter.offlineAccessAdvice = OfflineAccessAdvice(keySource: settings.keySource, gitProfile: settings.credentialHost != nil)
        }

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
        // The profile is written by the sign-in, under the token file's lock (one unit with the tokens).
        let warnedBefore = existing?.offlineAccessWarned == true
        let profiles = access.profiles, profile = access.profile
        let saveProfile: @Sendable (StoredSession) throws -> Void = { session in
            var saved = settings
            saved.offlineAccessWarned =
                warnedBefore
                || (OfflineAccessPolicy.warns(settings.client, session) && presenter.showsOfflineAccessWarning)
            try profiles.save(saved, profile: profile)
        }
        _ = try await TerminationSignals.startWatching().run {
            try await session.signIn(
                flow: flow, timeout: timeout, offlineAccess: offlineAccessPolicy(context.arguments),
                pasteReader: flow == .paste ? pasteReader : nil,
                backchannel: backchannel, authentication: authentication, alongside: saveProfile,
                events: { presenter.handle($0) })
        }
        return 0
    }

    /// `--acr-values "A B"` and `--max-age N` (OIDC Core §3.1.2.1) as the library's requirement.
    static func authenticationRequirement(_ args: ParsedArguments) throws -> AuthenticationRequirement {
        var requirement = AuthenticationRequirement()
        if let text = args.string(.acrValues) {
            let values = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            guard !values.isEmpty, values.allSatisfy({ CharacterClass.isVisibleASCII($0) }) else {
                throw UsageError("--acr-values needs space-separated values of printable ASCII", command: .login)
            }
            requirement.acrValues = values
        }
        if args.has(.maxAge) {
            let n = try args.nonNegativeInteger(.maxAge, default: 0)
            guard n <= ResourceChallenge.maxMaxAge else {
                throw UsageError("--max-age must be at most \(ResourceChallenge.maxMaxAge) seconds", command: .login)
            }
            requirement.maxAge = n
        }
        return requirement
    }

    /// `--require-dpop-for-offline-access` as the library's policy.
    static func offlineAccessPolicy(_ args: ParsedArguments) -> OfflineAccessPolicy {
        args.has(.requireDPoPForOfflineAccess) ? .requireDPoP : .warn
    }

    /// True when `--credential-host` without `--dpop` changes the profile's DPoP mode to `never`:
    /// git's password is a Bearer token (`credential get` refuses a DPoP-bound one).
    static func gitProfileTurnsDPoPOff(_ args: ParsedArguments, existing: ProfileSettings?) -> Bool {
        args.has(.credentialHost) && !args.has(.dpop) && (existing?.client.dpop ?? .auto) != .never
    }

    /// The settings to sign in with: the options given, over what the profile remembers.
    static func settings(from context: CommandContext, existing: ProfileSettings?, access: ProfileAccess) throws -> ProfileSettings {
        let args = context.arguments
        let flow = LoginFlow(rawValue: try args.choice(.flow, LoginFlow.allCases.map(\.rawValue), default: "device"))!
        let profileHint = access.profile == "default" ? "" : " of profile '\(access.profile)'"
        guard let issuer = args.string(.issuer) ?? existing?.client.issuer, !issuer.isEmpty else {
            throw UsageError("--issuer is required on the first login\(profileHint)", command: .login)
        }
        guard let clientID = args.string(.clientID) ?? existing?.client.clientID, !clientID.isEmpty else {
            throw UsageError("--client-id is required on the first login\(profileHint)", command: .login)
        }
        var client = ProfileSettings.startingConfiguration(remembered: existing, issuer: issuer, clientID: clientID)
        if let scope = args.string(.scope) {
            let scopes = scope.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            guard !scopes.isEmpty else { throw UsageError("--scope needs at least one scope", command: .login) }
            client.scopes = scopes
        }
        if let uri = args.string(.redirectURI) { client.redirectURI = uri }
        if args.has(.pkce) {
            client.pkce = PKCEMode(rawValue: try args.choice(.pkce, PKCEMode.allCases.map(\.rawValue), default: "auto"))!
        }
        if args.has(.dpop) {
            client.dpop = DPoPMode(rawValue: try args.choice(.dpop, DPoPMode.allCases.map(\.rawValue), default: "auto"))!
        } else if args.has(.credentialHost) {
            client.dpop = .never  // a git profile is a Bearer profile (gitProfileTurnsDPoPOff)
        }
        let secret = try SecretInput.clientSecret(context)
        if args.has(.authMethod) {
            client.authMethod = ClientAuthMethod(
                rawValue: try args.choice(
                    .authMethod, ClientAuthMethod.allCases.map(\.rawValue), default: "none"))!
        } else if secret != nil && client.authMethod == .none {
            client.authMethod = .clientSecretBasic
        }
        try ClientAssertionOptions.apply(args, existing: existing, to: &client)
        var endpoints = client.endpoints
        for (key, keyPath) in [
            (OptionKey.deviceAuthorizationEndpoint, \EndpointOverrides.deviceAuthorization),
            (.tokenEndpoint, \EndpointOverrides.token),
            (.authorizationEndpoint, \EndpointOverrides.authorization),
            (.revocationEndpoint, \EndpointOverrides.revocation),
            (.jwksURI, \EndpointOverrides.jwksURI)
        ] {
            guard let value = args.string(key) else { continue }
            endpoints[keyPath: keyPath] = value
        }
        client.endpoints = endpoints
        try requestExtensions(args, into: &client)

        var requested: KeySource?
        if let text = args.string(.keySource) {
            guard let source = KeySource(name: text) else {
                throw UsageError(
                    "--key-source must be machine, passphrase, credential or file:PATH, got '\(text)'",
                    command: .login)
            }
            requested = source
        }
        var settings = ProfileSettings(client: client, keySource: .machine)
        try rememberCredentialAndLogout(args, existing: existing, into: &settings)
        try rememberClientCertificate(args, existing: existing, into: &settings)
        // `--ca-file` on login becomes the profile's bundle (by absolute path, read at each use),
        // checked by the rule `config set ca-file` applies: the library's one table.
        if let file = context.globals.caFileOption, !file.isEmpty {
            settings.caFile = try RememberedSettingWording.checked(.caFile, file, command: .login)
        } else {
            settings.caFile = existing?.caFile
        }
        settings.clientKeyFile = try ClientAssertionOptions.keyFile(args, existing: existing, client: client)
        settings.clientAssertionFile = try ClientAssertionOptions.clientAssertionFile(args, existing: existing, client: client)
        settings.assertionFile = try ClientAssertionOptions.assertionFile(args, existing: existing, flow: flow)
        // A person's flow is what `fetch --sign-in` uses next; a machine grant leaves it as it was.
        settings.signInFlow = FetchCommand.personFlows.contains(flow) ? flow.rawValue : existing?.signInFlow
        // Which settings go together is the library's rule; only the words are the CLI's.
        try LoginProblemWording.check(
            settings, flow: flow, clientSecret: secret != nil,
            loginHint: flow != .ciba || args.string(.loginHint).map { !$0.isEmpty } == true,
            offlineAccess: offlineAccessPolicy(args))
        do {
            settings.keySource = try ProfileSettings.keySource(
                requested: requested, remembered: existing,
                tokenFileExists: access.unlockedStore(existing).hasTokenFile)
            return settings
        } catch {
            switch error {
            case .keySourceFixed(let current, _):
                throw UsageError(
                    "profile '\(access.profile)' already uses key source '\(current.name)'", command: .login,
                    hint: "the key source is fixed at the first login; run `latchkey logout` first, or use another --profile")
            }
        }
    }

    /// `--par`, `--resource` (repeatable) and `--param NAME=VALUE` (repeatable), over what the
    /// profile remembers: given resources or parameters replace the remembered list as a whole.
    static func requestExtensions(_ args: ParsedArguments, into client: inout ClientConfiguration) throws {
        if args.has(.par) {
            client.par = PARMode(rawValue: try args.choice(.par, PARMode.allCases.map(\.rawValue), default: "auto"))!
        }
        let resources = args.all(.resource)
        if !resources.isEmpty { client.resources = resources }
        let params = args.all(.param)
        if !params.isEmpty {
            client.extraParameters = try params.map { text in
                guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                    throw UsageError("--param needs NAME=VALUE, got '\(TerminalText.singleLine(text))'", command: .login)
                }
                let name = String(text[..<eq])
                do {
                    return try RequestParameter(name: name, value: String(text[text.index(after: eq)...]))
                } catch {
                    if case .configuration(.unusableParameter(_, .protocolOwned))? = error as? LatchkeyError {
                        throw UsageError(
                            "--param cannot set '\(TerminalText.singleLine(name))': latchkey sets it itself",
                            command: .login,
                            hint: name == "resource" ? "use --resource URI" : "the flow owns this parameter")
                    }
                    throw UsageError(
                        "--param NAME must be printable ASCII without spaces, '=' or '&', and VALUE without control characters",
                        command: .login)
                }
            }
        }
    }

    /// `--client-cert-file` and `--client-cert-key-file` (RFC 8705), over what the profile remembers,
    /// as absolute paths so later commands find them from any directory. The files are only read
    /// when a request needs them, never copied; the mutual-TLS methods need both.
    static func rememberClientCertificate(
        _ args: ParsedArguments, existing: ProfileSettings?,
        into settings: inout ProfileSettings
    ) throws {
        settings.clientCertificateFile = existing?.clientCertificateFile
        settings.clientCertificateKeyFile = existing?.clientCertificateKeyFile
        for (key, path) in [
            (OptionKey.clientCertFile, \ProfileSettings.clientCertificateFile),
            (.clientCertKeyFile, \ProfileSettings.clientCertificateKeyFile)
        ] {
            guard let value = args.string(key) else { continue }
            guard !value.isEmpty else { throw UsageError("\(key.longName) needs a file name", command: .login) }
            settings[keyPath: path] = ClientCertificateFiles.absolute(value)
        }
        let method = settings.client.authMethod
        let given = args.has(.clientCertFile) || args.has(.clientCertKeyFile)
        // Switching to a method without certificates forgets remembered ones; given ones are kept
        // (a certificate can bind the tokens of a client_secret_* client too, RFC 8705 §3).
        if !method.usesClientCertificate && !given {
            settings.clientCertificateFile = nil
            settings.clientCertificateKeyFile = nil
        }
        if (settings.clientCertificateFile == nil) != (settings.clientCertificateKeyFile == nil) {
            throw UsageError(
                "--client-cert-file and --client-cert-key-file go together", command: .login,
                hint: "give the PEM certificate and its private key (the key owner-only)")
        }
    }

    /// `--credential-host`, `--credential-username` and `--post-logout-redirect-uri`, over what the
    /// profile remembers. They end up in git's input or a URL, so line breaks and controls are refused.
    static func rememberCredentialAndLogout(
        _ args: ParsedArguments, existing: ProfileSettings?,
        into settings: inout ProfileSettings
    ) throws {
        for (key, setting) in [
            (OptionKey.credentialHost, RememberedSetting.credentialHost), (.credentialUsername, .credentialUsername),
            (.postLogoutRedirectURI, .postLogoutRedirectURI)
        ] {
            let value = try args.string(key).map { try RememberedSettingWording.checked(setting, $0, command: .login) }
            setting.set(&settings, value ?? existing.flatMap(setting.get))
        }
    }
}
