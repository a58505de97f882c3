import Latchkey

/// The library's sign-in rules (`ClientConfiguration.problems(for:given:)`) in `login`'s terms:
/// the options that fix each problem. Problems without a word of their own here keep the
/// library's, through `FailureReport`.
enum LoginProblemWording {
    /// The hint for a CIBA login without `--login-hint`.
    static let loginHintHint =
        "the hint's format is the provider's: an e-mail address, a user name, or JSON such as '{\"username\":\"alice\"}' for Glewlwyd"

    /// Throws the first problem of a login with `settings`, worded with the options.
    static func check(
        _ settings: ProfileSettings, flow: LoginFlow, clientSecret: Bool, loginHint: Bool,
        offlineAccess: OfflineAccessPolicy
    ) throws {
        let materials = SignInMaterials(
            clientSecret: clientSecret, clientKey: settings.clientKeyFile != nil || settings.clientAssertionFile != nil,
            clientCertificate: settings.clientCertificateFile != nil && settings.clientCertificateKeyFile != nil,
            loginHint: loginHint, pasteReader: flow == .paste, offlineAccess: offlineAccess,
            assertion: settings.assertionFile != nil)
        if let problem = settings.client.problems(for: flow, given: materials).first { throw error(problem) }
    }

    /// The error `login` reports for `problem`.
    static func error(_ problem: ConfigurationProblem) -> any Error {
        switch problem {
        case .unusableRedirectURI(let uri, _):
            return UsageError("--redirect-uri must be an absolute URI, got '\(TerminalText.singleLine(uri))'", command: "login")
        case .unusableEndpoint(let member, let url):
            return UsageError(
                "--\(OptionName.fromMetadataMember(member)) must be an https URL, got '\(TerminalText.singleLine(url))'",
                command: "login")
        case .unusableResource(let resource):
            return UsageError(
                "--resource must be an absolute URI without fragment, got '\(TerminalText.singleLine(resource))'",
                command: "login")
        case .clientCredentialsNeedClientAuthentication:
            return UsageError(
                "--flow client-credentials needs a confidential client", command: "login",
                hint:
                    "give the secret with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET, and --auth-method if not client_secret_basic"
            )
        case .backchannelNeedsClientAuthentication:
            return UsageError(
                "--flow ciba needs client authentication (a confidential client)", command: "login",
                hint: "give the client secret with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET")
        case .missingClientSecret(let method):
            return UsageError(
                "--auth-method \(method.rawValue) needs a client secret", command: "login",
                hint: "give it with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET, never on the command line")
        case .missingClientCertificate(let method):
            return UsageError(
                "--auth-method \(method.rawValue) needs --client-cert-file and --client-cert-key-file", command: "login",
                hint: "give the PEM certificate and its private key (the key owner-only); they are remembered by path")
        case .missingClientKey:
            return UsageError(
                "--auth-method private_key_jwt needs the client's private key", command: "login",
                hint:
                    "give its file with --client-key-file FILE (PEM, mode 0600), or a ready-made assertion with --client-assertion-file FILE; read at each use, never copied"
            )
        case .missingAssertion:
            return UsageError(
                "--flow jwt-bearer needs --assertion-file FILE", command: "login",
                hint: "the file holding the JWT (a projected service-account token, a JWT-SVID), owner-only; read at each use")
        case .missingLoginHint:
            return UsageError("--flow ciba needs --login-hint HINT naming the person to ask", command: "login", hint: loginHintHint)
        default:
            return LatchkeyError.configuration(problem)
        }
    }
}
