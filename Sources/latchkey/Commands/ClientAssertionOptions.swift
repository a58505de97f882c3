import Glibc
import Latchkey
import LatchkeyJOSE
import LatchkeyRegistration

/// `login`'s private_key_jwt options (cli.md): `--client-key-file`, `--client-key-id`,
/// `--client-assertion-alg`, `--client-assertion-typ` and `--client-assertion-aud`, over what the
/// profile remembers. The key is remembered by its absolute path only.
enum ClientAssertionOptions {
    /// Sets `client.clientAssertion` from the options given, over the remembered settings.
    static func apply(_ args: ParsedArguments, existing: ProfileSettings?, to client: inout ClientConfiguration) throws {
        var settings = client.clientAssertion
        if let text = args.string("client-assertion-alg") {
            let names = JWSAlgorithm.allCases.map(\.rawValue)
            guard let algorithm = JWSAlgorithm(rawValue: text) else {
                throw UsageError(
                    "--client-assertion-alg must be one of \(names.joined(separator: ", ")), got '\(text)'",
                    command: "login")
            }
            settings.algorithm = algorithm
        }
        if let kid = args.string("client-key-id") {
            guard !kid.isEmpty, !kid.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw UsageError("--client-key-id must be non-empty, without control characters", command: "login")
            }
            settings.keyID = kid
        }
        if args.has("client-assertion-typ") {
            settings.type = ClientAssertionType(
                rawValue: try args.choice(
                    "client-assertion-typ", ClientAssertionType.allCases.map(\.rawValue), default: "client-authentication+jwt"))!
        }
        if args.has("client-assertion-aud") {
            settings.audience = ClientAssertionAudience(
                rawValue: try args.choice(
                    "client-assertion-aud", ClientAssertionAudience.allCases.map(\.rawValue), default: "issuer"))!
        }
        client.clientAssertion = settings
    }

    /// The key file to remember: `--client-key-file` made absolute, else the remembered one; nil
    /// unless the method is private_key_jwt.
    static func keyFile(_ args: ParsedArguments, existing: ProfileSettings?, client: ClientConfiguration) throws -> String? {
        guard client.authMethod == .privateKeyJWT else {
            if args.has("client-key-file") {
                throw UsageError("--client-key-file is for --auth-method private_key_jwt", command: "login")
            }
            return nil
        }
        if let path = args.string("client-key-file") {
            guard !path.isEmpty else { throw UsageError("--client-key-file needs a path", command: "login") }
            return absolute(path)
        }
        // None is the library's `missingClientKey`, worded by `LoginProblemWording`.
        return existing?.clientKeyFile
    }

    /// The key source the library reads at each use, for a profile using private_key_jwt; with
    /// the profile's token store, a key `register` generated (sealed under it) opens too.
    static func keySource(_ settings: ProfileSettings, store: (any TokenStore)? = nil) -> (any ClientKeySource)? {
        guard settings.client.authMethod == .privateKeyJWT, let path = settings.clientKeyFile else { return nil }
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
