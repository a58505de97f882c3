import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey verify [TOKEN|-]`: verifies any compact JWS/JWT against a JWKS (file or URL, or the
/// issuer's discovered `jwks_uri`) and checks its claims. Exit 0 and `{"header":…,"claims":…}`, or
/// exit 8 with the reason; exit 2 for usage errors.
enum VerifyCommand {
    /// Everything the command was asked to check, after validating the options.
    struct Request {
        var token: String
        var jwks: String?
        var issuer: String?
        var audience: String?
        var algorithms: Set<JWSAlgorithm>
        var leeway: Int64
        var at: Timestamp?
        var timeCheck: Bool
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let request = try parse(context)
        for warning in warnings(context.arguments) { context.console.warn(warning) }
        // Where the keys come from is settled first: an unreadable JWKS file or an unusable JWKS
        // URL is a usage error (exit 2), whatever the token.
        let keys = try keySet(for: request, context: context)
        // The library's one verifier, for any JWT. It checks the claims before it asks for keys, so
        // a token with wrong claims never causes a discovery or a JWKS fetch.
        let verifier = IDTokenVerifier(
            configuration: configuration(for: request), keySet: keys.set,
            time: request.at.map(FixedInstant.init) ?? SystemTimeSource())
        let token = request.token
        let verified: VerifiedIDToken
        do {
            if keys.remote {
                verified = try await TerminationSignals.startWatching().run { try await verifier.verify(token) }
            } else {
                verified = try await verifier.verify(token)
            }
        } catch let error as LatchkeyError {
            if case .verification(let reason) = error { throw CommandFailure.verification(reason.description) }
            throw error
        }
        let output = JSONValue.object(JSONObject([("header", .object(verified.header.json)), ("claims", .object(verified.claims.json))]))
        context.console.outLine(JSONOutput.text(output, console: context.console))
        return 0
    }

    /// What the options ask the verifier to check: a generic JWT, `iss` only with `--issuer`, `aud`
    /// (and `azp`) only with `--audience`, the time claims unless `--no-time-check`.
    static func configuration(for request: Request) -> IDTokenVerifier.Configuration {
        IDTokenVerifier.Configuration(
            issuer: request.issuer ?? "", clientID: request.audience ?? "",
            allowedAlgorithms: request.algorithms, leeway: Double(request.leeway),
            skipIssuerCheck: request.issuer == nil, skipClientIDCheck: request.audience == nil,
            skipExpiryCheck: !request.timeCheck, kind: .jwt)
    }

    /// The keys: a JWKS file read now, a JWKS URL, or the issuer's discovered `jwks_uri`; `remote`
    /// when checking the signature needs the network (and so a SIGINT watcher).
    static func keySet(for request: Request, context: CommandContext) throws -> (set: any KeySet, remote: Bool) {
        if let jwks = request.jwks {
            guard isURL(jwks) else { return (StaticKeySet(try loadKeyFile(jwks)), false) }
            guard let url = HTTPURL(string: jwks) else { throw UsageError("invalid JWKS URL '\(jwks)'", command: .verify) }
            return (RemoteKeySet(url: url, transport: ProfileAccess(context).transport(), time: SystemTimeSource()), true)
        }
        return (DiscoveredKeySet(issuer: request.issuer!, transport: ProfileAccess(context).transport()), true)
    }

    /// Validates the options and reads the token (argument, or stdin for `-` or none).
    static func parse(_ context: CommandContext) throws -> Request {
        let args = context.arguments
        let jwks = args.string(.jwks)
        let issuer = args.string(.issuer)
        guard jwks != nil || issuer != nil else {
            throw UsageError("verify needs keys: --jwks FILE|URL or --issuer URL", command: .verify)
        }
        if let jwks, jwks.isEmpty { throw UsageError("--jwks needs a file or URL", command: .verify) }
        if let issuer, issuer.isEmpty { throw UsageError("--issuer needs a URL", command: .verify) }
        var algorithms = Set(JWSAlgorithm.allCases)
        if let list = args.string(.alg) {
            algorithms = []
            for name in list.split(separator: ",").map({ String($0).strippingSpaces }) where !name.isEmpty {
                guard let alg = JWSAlgorithm(rawValue: name) else {
                    throw UsageError(
                        "--alg: unsupported algorithm '\(name)'", command: .verify,
                        hint: "choose from " + JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ","))
                }
                algorithms.insert(alg)
            }
            guard !algorithms.isEmpty else { throw UsageError("--alg needs at least one algorithm", command: .verify) }
        }
        let leeway = Int64(try args.nonNegativeInteger(.leeway, default: 60))
        var at: Timestamp?
        if let text = args.string(.at) {
            guard let date = parseTime(text) else {
                throw UsageError(
                    "--at needs an RFC 3339 time or epoch seconds, got '\(text)'", command: .verify,
                    hint: "e.g. --at 2026-01-01T12:00:00Z or --at 1767268800")
            }
            at = date
        }
        if at != nil && args.has(.noTimeCheck) {
            throw UsageError("--at and --no-time-check contradict each other", command: .verify)
        }
        let token = try readToken(args.positionals.first)
        return Request(
            token: token, jwks: jwks, issuer: issuer, audience: args.string(.audience),
            algorithms: algorithms, leeway: leeway, at: at, timeCheck: !args.has(.noTimeCheck))
    }

    /// What the request leaves open, one line each (printed unless `--quiet`; exit codes unchanged).
    static func warnings(_ args: ParsedArguments) -> [String] {
        var lines: [String] = []
        if let argument = args.positionals.first, argument != "-" {
            // argv is world-readable: every local user sees it in ps and /proc/PID/cmdline.
            lines.append(
                "a token on the command line is visible to other users (ps, /proc/PID/cmdline); "
                    + "pass it on stdin instead: latchkey verify - < FILE")
        }
        if args.string(.audience) == nil {
            lines.append("no --audience: the token's aud is not checked, so a token issued to any client passes")
        }
        return lines
    }

    /// RFC 3339, or whole epoch seconds.
    static func parseTime(_ text: String) -> Timestamp? {
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(text) {
            return Timestamp(timeIntervalSince1970: Double(seconds))
        }
        return RFC3339.parse(text)
    }

    /// The token from the argument, or from stdin; surrounding whitespace removed.
    static func readToken(_ argument: String?) throws -> String {
        var raw: String
        if let argument, argument != "-" {
            raw = argument
        } else {
            guard let bytes = SmallFile.readAll(fd: 0, limit: JWS.maxSize + 1024) else {
                throw CommandFailure.verification("cannot read the token from stdin: \(ErrnoText.describe(errno))")
            }
            raw = String(decoding: bytes, as: UTF8.self)
        }
        raw = raw.strippingSpaces
        guard !raw.isEmpty else {
            throw UsageError("no token given", command: .verify, hint: "pass it as an argument or on stdin (with '-')")
        }
        return raw
    }

    /// True for `https://` and `http://` key-set locations.
    static func isURL(_ source: String) -> Bool { source.hasPrefix("https://") || source.hasPrefix("http://") }

    /// Reads and parses a JWKS file: unreadable → exit 2, not a valid key set → exit 8.
    static func loadKeyFile(_ path: String) throws -> JWKSet {
        guard let bytes = SmallFile.read(path, limit: 1 << 20) else {
            throw UsageError("cannot read --jwks \(path): \(ErrnoText.describe(errno))", command: .verify)
        }
        do { return try JWKSet(data: bytes) } catch {
            throw CommandFailure.verification("the key set \(path) is invalid: \(error.description)")
        }
    }
}

/// The keys behind an issuer's discovered `jwks_uri`, discovered only when a signature is to be
/// checked (after the claims passed).
private struct DiscoveredKeySet: KeySet {
    let issuer: String
    let transport: any HTTPTransport

    func verify(_ jws: JWS, allowed: Set<JWSAlgorithm>) async throws(LatchkeyError) -> JWK {
        let metadata = try await ProviderDiscovery.discover(issuer: issuer, transport: transport)
        // Discovery refuses a jwks_uri that is not an https URL (http only for loopback).
        guard let uri = metadata.jwksURI, let url = HTTPURL(string: uri) else {
            throw .protocolViolation("the metadata of \(issuer) has no jwks_uri")
        }
        return try await RemoteKeySet(url: url, transport: transport, time: SystemTimeSource()).verify(jws, allowed: allowed)
    }
}

/// `--at`: the claims are judged as of one fixed instant.
private struct FixedInstant: TimeSource {
    let instant: Timestamp
    func now() -> Timestamp { instant }
    func sleep(seconds: Double) async throws { try await SystemTimeSource().sleep(seconds: seconds) }
}

extension String {
    /// The text without leading and trailing spaces, tabs and line breaks.
    var strippingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
