import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyJOSE
import LatchkeyRegistration

/// `latchkey register`: presentation of the library's `DeviceRegistration` (cli.md, "register").
enum RegisterCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let access = ProfileAccess(context)
        let random: SecureRandom
        do { random = try SecureRandom() } catch {
            throw CommandFailure(exitCode: 1, code: "internal_error", message: "the system random source failed: \(error)", hint: nil)
        }
        let settings = try access.profiles.load(access.profile)
        var building = DeviceRegistration(
            stateDirectory: access.stateDirectory, profile: access.profile,
            transport: access.transport(settings: settings), random: random)
        // Test hooks (docs/cli.md): stop the process with SIGKILL right after the named write, or
        // fail there as a full disk would.
        let stop = context.environment.lookup("LATCHKEY_TEST_KILL_AT") ?? ""
        let fail = context.environment.lookup("LATCHKEY_TEST_FAIL_AT") ?? ""
        if !stop.isEmpty || !fail.isEmpty {
            building.checkpoint = { point throws(TokenStoreError) in
                if point == stop { kill(getpid(), SIGKILL) }
                if point == fail { throw TokenStoreError.io(path: point, operation: "write", errno: ENOSPC) }
            }
        }
        // Generated keys are sealed under the profile's key source, with the token file's inputs.
        let environment = context.environment.subset(["CREDENTIALS_DIRECTORY"])
        let passphrase = try SecretInput.passphrase(context, confirm: false)
        let stateDirectory = access.stateDirectory, profile = access.profile
        building.keyStore = { source in
            EncryptedFileTokenStore(
                stateDirectory: stateDirectory, profile: profile, keySource: source,
                environment: environment, passphrase: passphrase)
        }
        let registration = building
        let json = context.globals.json
        let modes = [OptionKey.show, .rotateKey, .delete].filter { context.arguments.has($0) }
        guard modes.count <= 1 else { throw UsageError("--show, --rotate-key and --delete are exclusive", command: .register) }
        do {
            switch modes.first {
            case .show?:
                let (answer, dialect) = try await TerminationSignals.startWatching().run { try await registration.show() }
                context.console.outLine(JSONOutput.text(.object(answer.redactedJSON(in: dialect)), console: context.console))
            case .rotateKey?:
                let thumbprint = try await TerminationSignals.startWatching().run { try await registration.rotateKey() }
                if json { event(context, [("event", "key_rotated"), ("key_thumbprint", .string(thumbprint))]) }
                context.console.info("The client key is rotated; the provider now holds only the new key (\(thumbprint)).\n")
            case .delete?:
                try await TerminationSignals.startWatching().run {
                    // Nothing is revoked for a profile with nothing to delete.
                    let deletion = try registration.deletion()
                    try await revoke(access, settings)
                    try await registration.delete(deletion)
                }
                if json { event(context, [("event", "deregistered")]) }
                context.console.info("The registration is deleted at the provider, and profile '\(access.profile)' is removed.\n")
            default:
                return try await create(context, access, registration, existing: settings)
            }
        } catch let error as RegistrationError {
            throw failure(error)
        }
        return 0
    }

    private static func create(
        _ context: CommandContext, _ access: ProfileAccess, _ registration: DeviceRegistration,
        existing: ProfileSettings?
    ) async throws -> Int32 {
        let issuer = try context.arguments.required(.issuer, why: "to register")
        let record = try registration.resolvedRecord()
        if !context.arguments.has(.force) {
            // A run stopped after the record and before the profile: this run finishes it.
            if let record, existing == nil, record.profileJSON != nil {
                guard sameIssuer(record.issuer, issuer) else {
                    throw UsageError(
                        "profile '\(access.profile)' has an unfinished registration at another issuer",
                        command: .register, hint: "remove it with `register --delete`, or pass --force")
                }
                return report(context, access, try registration.finish())
            }
            if record != nil || existing != nil {
                throw UsageError(
                    "profile '\(access.profile)' is already registered or signed in", command: .register,
                    hint: "pass --force to register it again, or use another --profile")
            }
        }
        let dialectName = try context.arguments.choice(.registrationDialect, RegistrationDialect.all.map(\.name), default: "rfc7591")
        let grant = try context.arguments.choice(.grant, ["device", "code", "both"], default: "device")
        let keyAlg = try context.arguments.choice(.keyAlg, ["ES256", "PS256"], default: "ES256")
        var token: SecretBytes?
        if let path = context.arguments.string(.initialAccessTokenFile) {
            var bytes = try SecretInput.readOwnerOnlySecretFile(path, option: .initialAccessTokenFile, command: .register)
            token = SecretBytes(bytes)
            for i in bytes.indices { bytes[i] = 0 }
        }
        let scopes = (context.arguments.string(.scope) ?? "openid offline_access")
            .split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        var request = DeviceRegistration.Request(
            issuer: issuer, initialAccessToken: token,
            clientName: context.arguments.string(.clientName) ?? "latchkey on " + hostname(),
            scopes: scopes)
        request.dialect = RegistrationDialect.named(dialectName) ?? .rfc7591
        request.deviceGrant = grant != "code"
        request.codeGrant = grant != "device"
        request.redirectURI = context.arguments.string(.redirectURI)
        if request.codeGrant && request.redirectURI == nil {
            throw UsageError("--grant \(grant) needs --redirect-uri", command: .register)
        }
        if let method = context.arguments.string(.authMethod) {
            guard method == "private_key_jwt" || method == "none" else {
                throw UsageError("--auth-method must be private_key_jwt or none", command: .register)
            }
            request.authMethod = ClientAuthMethod(rawValue: method)
        }
        request.keyAlgorithm = keyAlg == "PS256" ? .ps256 : .es256
        if let text = context.arguments.string(.keySource) {
            // Unattended by design: no passphrase to type at every refresh.
            guard let source = KeySource(name: text), source != .passphrase else {
                throw UsageError("--key-source must be machine, credential or file:PATH, got '\(text)'", command: .register)
            }
            request.keySource = source
        }
        request.clientKeyFile = context.arguments.string(.clientKeyFile).map(ClientCertificateFiles.absolute)
        request.caFile = context.globals.caFileOption.flatMap { $0.isEmpty ? nil : ClientCertificateFiles.absolute($0) }
        if let path = context.arguments.string(.softwareStatementFile) {
            let bytes = try SecretInput.readSecretFile(path, option: .softwareStatementFile, command: .register)
            request.softwareStatement = String(decoding: bytes, as: UTF8.self)
        }
        let immutable = request
        let created = try await TerminationSignals.startWatching().run { try await registration.create(immutable) }
        return report(context, access, created)
    }

    private static func sameIssuer(_ a: String?, _ b: String) -> Bool {
        func trimmed(_ s: String) -> Substring { var s = Substring(s); while s.hasSuffix("/") { s = s.dropLast() }; return s }
        return a.map { trimmed($0) == trimmed(b) } ?? false
    }

    private static func report(_ context: CommandContext, _ access: ProfileAccess, _ created: DeviceRegistration.Created) -> Int32 {
        if context.globals.json {
            var members: [(String, JSONValue)] = [
                ("event", "registered"), ("client_id", .string(created.record.registration.clientID)),
                ("auth_method", .string(created.settings.client.authMethod.rawValue))
            ]
            members.append(("key_thumbprint", created.keyThumbprint.map(JSONValue.string) ?? .null))
            members.append(("management", .bool(created.record.management != nil)))
            event(context, members)
        }
        // The client_id is VSCHAR (the library refuses others); printed as server text all the same.
        context.console.info(
            "Registered as client \(TerminalText.singleLine(created.record.registration.clientID)); sign in with `latchkey"
                + (access.profile == "default" ? "" : " --profile \(access.profile)") + " login`.\n")
        return 0
    }

    /// Logs out with revocation when the profile has tokens (Glewlwyd keeps a deleted client's tokens alive).
    private static func revoke(_ access: ProfileAccess, _ settings: ProfileSettings?) async throws {
        guard let settings else { return }
        let store = try access.tokenStore(settings)
        guard store.hasTokenFile else { return }
        let warnings = try await access.session(settings, store: store).logout(revoke: true)
        for warning in warnings { access.context.console.warn(SessionCommands.wording(warning)) }
    }

    private static func event(_ context: CommandContext, _ members: [(String, JSONValue)]) {
        context.console.outLine(JSONValue.object(JSONObject(members)).jsonText)
    }

    /// Every registration failure is the provider refusing or breaking the protocol (exit 7),
    /// except a profile with nothing to manage. What the core reported (discovery, the network,
    /// a key file, the files) is the core's error again, worded as everywhere (`FailureReport`).
    static func failure(_ error: RegistrationError) -> any Error {
        if let profile = error.profileFileError { return profile }
        switch error {
        case .latchkey(let inner):
            return inner
        case .storage(let inner):
            return inner
        case .notRegistered(let profile):
            return CommandFailure(
                exitCode: 3, code: error.code, message: error.description,
                hint: "run `latchkey --profile \(profile) register --issuer URL --initial-access-token-file FILE`")
        case .keyGeneration:
            return CommandFailure(exitCode: 9, code: error.code, message: error.description, hint: "check --client-key-file and --key-alg")
        case .provisioningTokenRefused:
            return CommandFailure(
                exitCode: 7, code: error.code, message: error.description,
                hint: "the token may be used up, expired or lack the registration scope: ask for a new one")
        default:
            return CommandFailure(
                exitCode: 7, code: error.code, message: TerminalText.singleLine(error.description),
                hint: "check the issuer and --registration-dialect")
        }
    }

    private static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "a device" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
