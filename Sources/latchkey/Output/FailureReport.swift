import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// Turns any error into what the user sees — `latchkey: <what failed>` and a hint line on
/// stderr — and the exit code of the contract (docs/cli.md, "Exit codes").
struct FailureReport: Sendable {
    /// The exit code.
    let exitCode: Int32
    /// A stable short name, for JSON error events (`access_denied`, `expired_token`, …).
    let code: String
    /// One line saying what failed.
    let message: String
    /// What to do next, or nil.
    let hint: String?

    /// Classifies `error`.
    init(_ error: any Error) {
        switch error {
        case let usage as UsageError:
            self.init(exitCode: 2, code: "usage", message: usage.message, hint: usage.hint)
        case let failure as CommandFailure:
            self.init(exitCode: failure.exitCode, code: failure.code, message: failure.message, hint: failure.hint)
        case let library as LatchkeyError:
            self.init(library)
        case let jose as JOSEError:
            self.init(
                exitCode: 8, code: "verification_failed", message: "token verification failed: \(jose.description)",
                hint: "check the key set, the issuer, the audience and the clock")
        case let http as HTTPError:
            self.init(LatchkeyError.network(http))
        case let store as TokenStoreError:
            self.init(exitCode: 9, code: "storage_error", message: FailureReport.wording(store), hint: FailureReport.storageHint(store))
        case let profile as ProfileFileError:
            // A folder or file with unsafe permissions is fixed with chmod/chown, not by removing it.
            let hint: String
            switch profile {
            case .storage(let store) where FailureReport.isPermissionProblem(store):
                hint = FailureReport.storageHint(store)
            default: hint = "fix or remove the file, then run `latchkey login` again"
            }
            self.init(exitCode: 9, code: "storage_error", message: profile.description, hint: hint)
        case is CancellationError:
            self.init(exitCode: 130, code: "cancelled", message: "interrupted", hint: nil)
        default:
            self.init(
                exitCode: 1, code: "internal_error", message: "unexpected error: \(error)",
                hint: "this is a bug; please report it with the command you ran")
        }
    }

    private init(_ error: LatchkeyError) {
        switch error {
        case .storage(let inner):
            self.init(exitCode: 9, code: "storage_error", message: FailureReport.wording(inner), hint: FailureReport.storageHint(inner))
        case .clientKey(let inner):
            self.init(exitCode: 9, code: "storage_error", message: inner.description, hint: FailureReport.clientKeyHint(inner))
        case .configuration(let problem) where problem.issuerMeant != nil:
            let issuer = problem.issuerMeant ?? ""
            self.init(
                exitCode: 2, code: error.code, message: problem.description,
                hint: "pass --issuer \(issuer)")
        case .network(.unreadableCABundle):
            // An option file that cannot be read is a usage error (cli.md, exit 2), not a network one.
            self.init(
                exitCode: 2, code: "usage", message: error.message,
                hint: "check --ca-file, LATCHKEY_CA_FILE, SSL_CERT_FILE and the profile's ca file (`latchkey status`)")
        case .configuration(let problem):
            let words = ConfigurationProblemWording.words(problem)
            self.init(
                exitCode: 2, code: error.code, message: words.message, hint: words.hint ?? ConfigurationProblemWording.defaultHint)
        case .cancelled, .network(.cancelled):
            self.init(exitCode: 130, code: "cancelled", message: "interrupted", hint: nil)
        case .notSignedIn:
            self.init(
                exitCode: 3, code: error.code, message: error.message,
                hint: "run `latchkey login --issuer URL --client-id ID`")
        case .oauth(.unavailable(let status, let wait), let endpoint):
            self.init(
                exitCode: FailureReport.exitCode(error), code: error.code,
                message: FailureReport.unavailable(endpoint, status: status, wait: wait),
                hint: wait.map { "try again in \($0) s or later" } ?? "the provider is failing or busy: try again later")
        default:
            self.init(
                exitCode: FailureReport.exitCode(error), code: error.code, message: error.message,
                hint: FailureReport.hint(error))
        }
    }

    /// The exit code of the contract (cli.md, "Exit codes") for a library error.
    static func exitCode(_ error: LatchkeyError) -> Int32 {
        switch error.category {
        case .signInRequired: return 3
        case .denied: return 4
        case .expired: return 5
        case .network: return 6
        case .protocolViolation: return 7
        case .verification: return 8
        case .storage: return 9
        case .configuration: return 2
        case .cancelled: return 130
        }
    }

    /// What to do next, in the CLI's terms.
    static func hint(_ error: LatchkeyError) -> String? {
        switch error {
        case .notSignedIn, .reauthenticationRequired, .expired, .timedOut, .denied:
            return "run `latchkey login`"
        case .network(.untrustedCABundle):
            return "keep the bundle where only you or root can write it: chmod go-w the file and each folder above it, or move it"
        case .network(let e) where HTTPClient.isMissingCABundle(e): return "name one with --ca-file, LATCHKEY_CA_FILE or SSL_CERT_FILE"
        case .network(.tlsExpected): return "write the URL with https://"
        case .network(.tlsNotSpoken): return "check the port, or write the URL with http:// (loopback only)"
        case .network: return "check the network, proxy settings and --ca-file"
        case .oauth(let e, _) where e.code == "invalid_client" || e.code == "unauthorized_client":
            return "check --client-id, --auth-method and the client secret"
        case .oauth(let e, _) where e.code == "invalid_target":
            return "the provider refused a --resource value (RFC 8707); check it with the provider, or log in without it"
        case .oauth(_, .backchannelAuthentication):
            return "check --login-hint: the provider refuses a user it does not know (unknown_user_id; Glewlwyd says invalid_request)"
        case .oauth, .protocolViolation, .tokenBinding: return "run with --verbose to see the exchange"
        case .clientCertificate(.unusable):
            return "check --client-cert-file and --client-cert-key-file: PEM, the key unencrypted and the certificate's, valid now"
        case .clientCertificate(.refused):
            return "check that the provider trusts the certificate's CA and registers its subject for this client"
        case .issuerMismatch: return "pass the issuer exactly as the provider spells it"
        case .resourceMetadata(.otherOrigin):
            return "a resource's 401 may name metadata on its own origin only; ask its operator, or log in with --issuer"
        case .resourceMetadata: return "the resource's metadata (RFC 9728) cannot be used; log in with --issuer and --resource instead"
        case .verification: return "check the issuer, client id, allowed algorithms and the system clock"
        case .storage, .clientKey: return "check the state directory, its permissions and the key source"
        case .configuration, .cancelled: return nil
        case .clientAuthenticationRefused(let refusal) where refusal.assertionAudience == .issuer:
            return "some providers (Glewlwyd) accept only the endpoint URL as the assertion's aud: try "
                + "`latchkey login --client-assertion-aud endpoint`; else check --client-id and --client-key-file"
        case .clientAuthenticationRefused:
            return "check --client-id, --auth-method and that the provider has the public key of --client-key-file"
                + " (or accepts the assertion of --client-assertion-file)"
        case .credentialFile(let problem): return credentialFileHint(problem)
        }
    }

    /// What to do about an unusable private_key_jwt key file.
    static func clientKeyHint(_ error: ClientKeyError) -> String {
        switch error {
        case .unreadable(_, let store) where FailureReport.isPermissionProblem(store):
            return "the client key file must be owned by you and not readable by others: chmod 600 it"
        case .missing, .unreadable:
            return "give the key's file with `latchkey login --client-key-file FILE`"
        case .refused:
            return "--client-key-file needs an unencrypted PEM private key: PKCS#8, SEC1 or PKCS#1; RSA ≥ 2048 bits, P-256 or P-384"
        case .signingFailed:
            return "check the key file; this may be a bug if the key is valid"
        }
    }

    /// What to do about an assertion or token file (cli.md, the token and assertion file rule).
    static func credentialFileHint(_ problem: CredentialFileProblem) -> String {
        switch problem {
        case .unreadable(_, let store) where FailureReport.isPermissionProblem(store):
            return "the file is a bearer credential: it must be owned by you and not readable or writable by others (chmod 600 or 400)"
        case .missing, .unreadable:
            return "check the path given with --assertion-file or --client-assertion-file (remembered by the profile)"
        case .notOneToken, .notAJWT:
            return "the file must hold one JWT on one line (one trailing newline is ignored)"
        case .expired:
            return "the file's issuer (kubelet, a SPIFFE agent) rotates it: check that it still runs, then try again"
        }
    }

    /// A store failure, with the options that supply a missing passphrase.
    static func wording(_ error: TokenStoreError) -> String {
        error == .passphraseRequired ? error.description + " (use --passphrase-file or LATCHKEY_PASSPHRASE)" : error.description
    }

    /// An endpoint that kept failing (the same words at every endpoint), or asked for a wait
    /// longer than latchkey gives it (`TransientFailure.maxRetryAfter`, or the time left).
    static func unavailable(_ endpoint: EndpointRole, status: Int, wait: Int64?) -> String {
        let name: String
        switch endpoint {
        case .discovery: name = "the provider's discovery document"
        case .jwks: name = "the provider's key set (JWKS)"
        default: name = "the provider's " + endpoint.rawValue.replacingUnderscores + " endpoint"
        }
        guard let wait else { return "\(name) kept failing: HTTP \(status)" }
        return "\(name) answered HTTP \(status) and asks to wait \(wait) s (Retry-After), longer than latchkey waits"
            + " (at most \(Int(TransientFailure.maxRetryAfter)) s, and never past the command's deadline)"
    }

    /// Makes a report from its parts.
    init(exitCode: Int32, code: String, message: String, hint: String?) {
        self.exitCode = exitCode
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// The same report with the exit code and wording of an interruption, for when a signal
    /// was received and the library unwound with whatever error cancellation produced.
    func interrupted(by signalExitCode: Int32) -> FailureReport {
        FailureReport(
            exitCode: signalExitCode, code: "cancelled",
            message: signalExitCode == 143 ? "terminated (SIGTERM)" : "interrupted (SIGINT)", hint: nil)
    }

    /// True for an unsafe mode or a foreign owner (the fix is chmod/chown).
    static func isPermissionProblem(_ error: TokenStoreError) -> Bool {
        switch error {
        case .unsafePermissions, .wrongOwner: return true
        default: return false
        }
    }

    static func storageHint(_ error: TokenStoreError) -> String {
        switch error {
        case .passphraseRequired, .wrongKeyOrTampered:
            return
                "supply the passphrase with --passphrase-file or LATCHKEY_PASSPHRASE, or check the key source; if the file was tampered with, run `latchkey logout --no-revoke` and `latchkey login`"
        case .unsafePermissions:
            return "fix the permissions (chmod 600 for files, 700 for the state directory)"
        case .wrongOwner(_, let owner, _):
            // Another user's state: changing its owner would break that user's session, so the way
            // out is to act as them (a service's DynamicUser too) or to use a state of one's own.
            return "this is uid \(owner)'s state: run latchkey as that user (`sudo -u '#\(owner)' latchkey …`; for a service, "
                + "`systemd-run --pty -p DynamicUser=yes -p User=NAME -p StateDirectory=NAME latchkey …`), "
                + "or use --state-dir for a state of your own; do not chown it"
        case .reservationFailed:
            return "free some space where the state directory is (df), then run the command again: the stored session still works"
        default:
            return "check the state directory, its permissions and the key source"
        }
    }

    /// The same report naming the state directory when the failure is "not signed in", so a
    /// person who runs as the wrong user (or with another `--state-dir`) sees where latchkey looked.
    func naming(stateDirectory: String) -> FailureReport {
        guard code == "not_signed_in" else { return self }
        return FailureReport(exitCode: exitCode, code: code, message: message + " (state directory \(stateDirectory))", hint: hint)
    }

    /// Writes the two lines to stderr and returns the exit code. Errors show even with `--quiet`.
    @discardableResult
    func emit() -> Int32 {
        // Messages carry server text (error_description, iss, kid, claims): sanitised here, once.
        var text = "latchkey: " + TerminalText.singleLine(message) + "\n"
        if let hint { text += "hint: " + TerminalText.singleLine(hint) + "\n" }
        Console.write(2, text)
        return exitCode
    }
}

private extension String {
    /// `pushed_authorization` → `pushed authorization`.
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
