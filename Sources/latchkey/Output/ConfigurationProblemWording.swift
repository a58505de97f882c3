import Latchkey

/// Each `ConfigurationProblem` in the CLI's words, written once: the line, and the hint naming
/// the options that fix it. `login` reports the problems of its own options as usage errors
/// (`LoginProblemWording`, before anything is sent); every other path gets the same words through
/// `FailureReport`. Both exit 2.
enum ConfigurationProblemWording {
    /// What is printed: `latchkey: message`, then `hint: hint`.
    struct Words: Equatable {
        let message: String
        let hint: String?
    }

    /// The hint for a CIBA login without `--login-hint`.
    static let loginHintHint =
        "the hint's format is the provider's: an e-mail address, a user name, or JSON such as '{\"username\":\"alice\"}' for Glewlwyd"

    /// The hint when the words name no option of their own.
    static let defaultHint = "run `latchkey login --help` for the options that supply it"

    /// True for the problems a login's own options cause: `login` reports them as usage errors.
    static func isUsage(_ problem: ConfigurationProblem) -> Bool {
        switch problem {
        case .unusableRedirectURI, .unusableEndpoint, .unusableResource, .clientCredentialsNeedClientAuthentication,
            .backchannelNeedsClientAuthentication, .missingClientSecret, .missingClientCertificate, .missingClientKey,
            .missingAssertion, .missingLoginHint:
            return true
        default:
            return false
        }
    }

    /// The words for `problem`.
    static func words(_ problem: ConfigurationProblem) -> Words {
        switch problem {
        case .unusableRedirectURI(let uri, _):
            return Words(message: "--redirect-uri must be an absolute URI, got '\(TerminalText.singleLine(uri))'", hint: nil)
        case .unusableEndpoint(let member, let url):
            return Words(
                message: "--\(OptionName.fromMetadataMember(member)) must be an https URL, got '\(TerminalText.singleLine(url))'",
                hint: nil)
        case .unusableResource(let resource):
            return Words(
                message: "--resource must be an absolute URI without fragment, got '\(TerminalText.singleLine(resource))'",
                hint: nil)
        case .clientCredentialsNeedClientAuthentication:
            return Words(
                message: "--flow client-credentials needs a confidential client",
                hint:
                    "give the secret with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET, and --auth-method if not client_secret_basic"
            )
        case .backchannelNeedsClientAuthentication:
            return Words(
                message: "--flow ciba needs client authentication (a confidential client)",
                hint: "give the client secret with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET")
        case .missingClientSecret(let method):
            return Words(
                message: "--auth-method \(method.rawValue) needs a client secret",
                hint: "give it with --client-secret-file FILE or LATCHKEY_CLIENT_SECRET, never on the command line")
        case .missingClientCertificate(let method):
            return Words(
                message: "--auth-method \(method.rawValue) needs --client-cert-file and --client-cert-key-file",
                hint: "give the PEM certificate and its private key (the key owner-only); they are remembered by path")
        case .missingClientKey:
            return Words(
                message: "--auth-method private_key_jwt needs the client's private key",
                hint: "give its file with --client-key-file FILE (PEM, mode 0600), or a ready-made assertion with "
                    + "--client-assertion-file FILE; read at each use, never copied")
        case .missingAssertion:
            return Words(
                message: "--flow jwt-bearer needs --assertion-file FILE",
                hint: "the file holding the JWT (a projected service-account token, a JWT-SVID), owner-only; read at each use")
        case .missingLoginHint:
            return Words(message: "--flow ciba needs --login-hint HINT naming the person to ask", hint: loginHintHint)
        case .missingEndpoint("backchannel_authentication_endpoint"):
            return Words(message: problem.description + ": the provider does not offer CIBA; use --flow device or browser", hint: nil)
        case .missingEndpoint(let name):
            return Words(message: problem.description + "; pass --" + OptionName.fromMetadataMember(name) + " URL", hint: nil)
        case .pushedAuthorizationRequired:
            return Words(message: problem.description + "; use --par auto or --par always", hint: nil)
        case .unusableParameter:
            return Words(message: problem.description + " (--param)", hint: nil)
        case .clientKeyDoesNotFitAlgorithm:
            return Words(message: problem.description + " (choose --client-assertion-alg to fit the key of --client-key-file)", hint: nil)
        case .clientAssertionAlgorithmNotAdvertised:
            return Words(message: problem.description + " (choose another --client-assertion-alg, and a key that fits it)", hint: nil)
        case .offlineAccessWithoutDPoP:
            return Words(
                message: problem.description + " (--require-dpop-for-offline-access; the provider does not offer DPoP with ES256,"
                    + " so use --dpop always or drop offline_access from --scope)",
                hint: nil)
        case .endOfPastedInput:
            return Words(
                message: problem.description, hint: "paste the address the browser was sent to (or the code) on stdin, then a newline")
        default:
            return Words(message: problem.description, hint: nil)
        }
    }
}
