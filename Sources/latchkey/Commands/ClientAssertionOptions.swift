import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyRegistration

/// `login`'s private_key_jwt options (cli.md): `--client-key-file`, `--client-key-id`,
/// `--client-assertion-alg`, `--client-assertion-typ` and `--client-assertion-aud`, over what the
/// profile remembers. The key is remembered by its absolute path only.
enum ClientAssertionOptions {
    /// Sets `client.clientAssertion` from the options given, over the remembered settings.
    static func apply(_ args: ParsedArguments, existing: ProfileSettings?, to client: inout ClientConfiguration) throws {
        var settings = client.clientAssertion
        if let text = args.string(.clientAssertionAlg) {
            let names = JWSAlgorithm.allCases.map(\.rawValue)
            guard let algorithm = JWSAlgorithm(rawValue: text) else {
                throw UsageError(
                    "--client-assertion-alg must be one of \(names.joined(separator: ", ")), got '\(text)'",
                    command: .login)
            }
            settings.algorithm = algorithm
        }
        if let kid = args.string(.clientKeyID) {
            guard !kid.isEmpty, !CharacterClass.containsASCIIControl(kid) else {
                throw UsageError("--client-key-id must be non-empty, without control characters", command: .login)
            }
            settings.keyID = kid
        }
        if args.has(.clientAssertionTyp) {
            settings.type = ClientAssertionType(
                rawValue: try args.choice(
                    .clientAssertionTyp, ClientAssertionType.allCases.map(\.rawValue), default: "client-authentication+jwt"))!
        }
        if args.has(.clientAssertionAud) {
            settings.audience = ClientAssertionAudience(
                rawValue: try args.choice(
                    .clientAssertionAud, ClientAssertionAudience.allCases.map(\.rawValue), default: "issuer"))!
        }
        client.clientAssertion = settings
    }

    /// The key file to remember: `--client-key-file` made absolute, else the remembered one; nil
    /// unless the method is private_key_jwt.
    static func keyFile(_ args: ParsedArguments, existing: ProfileSettings?, client: ClientConfiguration) throws -> String? {
        guard client.authMethod == .privateKeyJWT else {
            if args.has(.clientKeyFile) {
                throw UsageError("--client-key-file is for --auth-method private_key_jwt", command: .login)
            }
            return nil
        }
        if let path = args.string(.clientKeyFile) {
            guard !path.isEmpty else { throw UsageError("--client-key-file needs a path", command: .login) }
            return absolute(path)
        }
        // A ready-made assertion replaces the remembered key.
        if args.has(.clientAssertionFile) { return nil }
        // None is the library's `missingClientKey`, worded by `LoginProblemWording`.
        return existing?.clientKeyFile
    }

    /// The ready-made client assertion file to remember (RFC 7523 §2.2): `--client-assertion-file`
    /// made absolute, else the remembered one unless `--client-key-file` replaces it; nil unless the
    /// method is private_key_jwt. It goes instead of the key, never with it.
    static func clientAssertionFile(_ args: ParsedArguments, existing: ProfileSettings?, client: ClientConfiguration) throws -> String? {
        guard client.authMethod == .privateKeyJWT else {
            if args.has(.clientAssertionFile) {
                throw UsageError("--client-assertion-file is for --auth-method private_key_jwt", command: .login)
            }
            return nil
        }
        if let path = args.string(.clientAssertionFile) {
            guard !path.isEmpty else { throw UsageError("--client-assertion-file needs a path", command: .login) }
            if args.has(.clientKeyFile) {
                throw UsageError(
                    "--client-assertion-file and --client-key-file do not go together", command: .login,
                    hint: "a ready-made assertion, or one signed with the key: choose one")
            }
            return absolute(path)
        }
        return args.has(.clientKeyFile) ? nil : existing?.clientAssertionFile
    }

    /// The JWT bearer grant's assertion file to remember: `--assertion-file` made absolute, else the
    /// remembered one; only for `--flow jwt-bearer`, which needs it.
    static func assertionFile(_ args: ParsedArguments, existing: ProfileSettings?, flow: LoginFlow) throws -> String? {
        guard flow == .jwtBearer else {
            if args.has(.assertionFile) { throw UsageError("--assertion-file is for --flow jwt-bearer", command: .login) }
            return nil
        }
        if let path = args.string(.assertionFile) {
            guard !path.isEmpty else { throw UsageError("--assertion-file needs a path", command: .login) }
            return absolute(path)
        }
        return existing?.assertionFile
    }

    /// The client authentication of a profile with a ready-made assertion file, read at each request.
    static func assertionAuthentication(_ settings: ProfileSettings) -> (any RequestAuthenticator)? {
        guard settings.client.authMethod == .privateKeyJWT, let path = settings.clientAssertionFile else { return nil }
        return ClientAssertionFileAuthentication(clientID: settings.client.clientID, file: CredentialFile(path: path))
    }

    /// The key source the library reads at each use, for a profile using private_key_jwt; with
    /// the profile's token store, a key `register` generated (sealed under it) opens too.
    static func keySource(_ settings: ProfileSettings, store: (any TokenStore)? = nil) -> (any ClientKeySource)? {
        guard settings.client.authMethod == .privateKeyJWT, settings.clientAssertionFile == nil, let path = settings.clientKeyFile else {
            return nil
        }
        if let store = store as? EncryptedFileTokenStore { return ProfileClientKeyFile(path: path, store: store) }
        return ClientKeyFile(path: path)
    }

    /// `path` against the working directory, so a later command run elsewhere finds the same file.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let found = buffer.withUnsafeMutableBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { getcwd($0.baseAddress, $0.count) != nil }
        }
        guard found, let end = buffer.firstIndex(of: 0) else { return path }
        let cwd = String(decoding: buffer[..<end], as: UTF8.self)
        return (cwd.hasSuffix("/") ? cwd : cwd + "/") + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
