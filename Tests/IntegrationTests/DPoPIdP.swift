import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The DPoP plugins of the test Glewlwyd (Tests/Harness/idp/configure.py), as start-idp.sh exports
/// them, and the raw-HTTP tools the DPoP tests check Latchkey's output with.
struct DPoPIdP {
    let base: IntegrationEnvironment
    /// Issuers of the plugin `dpop` (DPoP allowed) and `dpopnonce` (mandatory server nonces).
    let issuer: String, issuerNonce: String
    /// The same plugins behind the TLS front.
    let issuerTLS: String, issuerNonceTLS: String
    /// Public client for Latchkey's runs, and the probe's own (the nonce is kept per client).
    let client: String, probeClient: String
    /// Confidential client: it can revoke DPoP-bound tokens (a public one cannot at Glewlwyd).
    let confidentialClient: String
    /// Tests/Harness/idp/dpop_probe.py.
    let probe: String
    /// The confidential clients' secret on the plain and on the TLS instance.
    let secretFile: String, secretFileTLS: String

    static func load(_ env: [String: String] = HostEnvironment.current) throws -> DPoPIdP {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return DPoPIdP(
            base: try IntegrationEnvironment.load(env),
            issuer: try v("ISSUER_DPOP"), issuerNonce: try v("ISSUER_DPOP_NONCE"),
            issuerTLS: try v("ISSUER_DPOP_TLS"), issuerNonceTLS: try v("ISSUER_DPOP_NONCE_TLS"),
            client: try v("CLIENT_DPOP"), probeClient: try v("CLIENT_DPOP_PROBE"),
            confidentialClient: try v("CLIENT_DPOP_CONFIDENTIAL"), probe: try v("DPOP_PROBE"),
            secretFile: try v("CLIENT_SECRET_FILE"), secretFileTLS: try v("CLIENT_SECRET_FILE_TLS"))
    }

    /// The counting proxy's log for `issuer` (plain or TLS instance).
    func proxyLog(for issuer: String) -> String { issuer.hasPrefix("https:") ? base.proxyLogTLS : base.proxyLog }

    /// The secret file of the confidential clients on `issuer`'s instance.
    func secretFile(for issuer: String) -> String { issuer.hasPrefix("https:") ? secretFileTLS : secretFile }

    /// RFC 7638 thumbprint of the `jwk` in `proof`'s header, computed by the probe script (Python's
    /// `cryptography`-free JSON + hashlib), not by Latchkey's own code.
    func thumbprint(ofProof proof: String) throws -> String {
        let r = try ProcessRunner.run(base.python, [probe, "--thumbprint-of", proof], timeout: .seconds(20))
        #expect(r.exitCode == 0, "thumbprint: \(r)")
        return r.stdoutText.trimmed
    }

    /// Sends `GET url` with exactly `headers` (curl, trusting the test CA); status and body.
    func get(_ url: String, headers: [String]) throws -> (status: Int, headers: String, body: String) {
        var args = ["-sS", "--cacert", base.caFile, "-D", "/dev/stderr", "-o", "/dev/stdout", "-w", "\n%{http_code}"]
        for h in headers { args += ["-H", h] }
        let r = try ProcessRunner.run("/usr/bin/curl", args + [url], timeout: .seconds(20))
        let lines = r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last.map(String.init) ?? "") ?? -1
        return (status, r.stderrText, lines.dropLast().joined(separator: "\n"))
    }
}

/// The claims (payload) of a compact JWS, unverified: the tests read the server's own tokens.
func jwtPayload(_ token: String) -> JSONValue? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let bytes = try? Base64URL.decode(parts[1]) else { return nil }
    return try? JSONParser().parse(bytes)
}

/// The protected header of a compact JWS.
func jwtHeader(_ token: String) -> JSONValue? {
    guard let head = token.split(separator: ".").first, let bytes = try? Base64URL.decode(head) else { return nil }
    return try? JSONParser().parse(bytes)
}
