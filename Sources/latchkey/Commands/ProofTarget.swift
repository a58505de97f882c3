import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// The request a DPoP proof is for: `--method M --url URL` (`token --format header`, `proof`).
struct ProofTarget: Sendable {
    /// The HTTP method, as given (RFC 9110 methods are case-sensitive).
    let method: String
    /// The request URL (the proof's `htu` drops its query and fragment).
    let url: HTTPURL

    /// The target when `--method` or `--url` is given; both are then needed.
    static func optional(_ args: ParsedArguments, command: CommandName) throws -> ProofTarget? {
        guard args.has(.method) || args.has(.url) else { return nil }
        return try required(args, command: command)
    }

    /// The target; a usage error (exit 2) when either option is missing or malformed.
    static func required(_ args: ParsedArguments, command: CommandName) throws -> ProofTarget {
        guard let method = args.string(.method), let text = args.string(.url) else {
            throw UsageError("a DPoP proof needs the request it is for: --method M --url URL", command: command)
        }
        // RFC 9110 §9.1: a method is a token.
        guard HTTPRequest.isValidMethod(method) else {
            throw UsageError("--method must be an HTTP method such as GET or POST, got '\(method)'", command: command)
        }
        let url: HTTPURL
        do { url = try HTTPURL.parse(text) } catch {
            throw UsageError("--url must be an https URL (http only to loopback): \(error)", command: command)
        }
        return ProofTarget(method: method, url: url)
    }

    /// The system random source, for `jti` and the signature.
    static func random() throws -> SecureRandom {
        do { return try SecureRandom() } catch {
            throw CommandFailure(
                exitCode: 1, code: "internal_error", message: "the system random source failed: \(error)",
                hint: "check that getrandom(2) works in this environment")
        }
    }
}
