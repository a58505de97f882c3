import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Through the built binary against the scripted server: resource-server nonces remembered between
/// processes, `client_id` sent once in a pushed request, explicit endpoints winning over
/// `mtls_endpoint_aliases`, and `-v` never showing CIBA's `auth_req_id`.
@Suite("latchkey: nonces, client_id once, explicit endpoints, -v redaction (scripted server)", .serialized)
struct ProtocolDetailProcessTests {
    static func log(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
    }

    /// A throwaway self-signed client certificate and key (both 0600) in `dir`: (certificate, key).
    static func clientCertificate(in dir: String) throws -> (String, String) {
        let cert = dir + "/device.pem", key = dir + "/device.key"
        let r = try ProcessRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=latchkey-process-device", "-keyout", key, "-out", cert
            ], timeout: .seconds(30))
        #expect(r.exitCode == 0, "openssl: \(r) \(r.stderrText)")
        _ = chmod(cert, 0o600)
        _ = chmod(key, 0o600)
        return (cert, key)
    }

    // MARK: Resource-server nonces (RFC 9449 §9)

    @Test func aSecondFetchSendsTheRememberedNonceFirst() throws {
        try withScriptedIdP("dpop-nonce-resource", ["--approve-after", "1"]) { idp, cli in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            func resourceStatuses(after count: Int) throws -> [Int64] {
                try Self.log(idp).dropFirst(count).filter { $0["path"] == "/resource" }.compactMap { $0["status"]?.int64Value }
            }
            var seen = try Self.log(idp).count
            let first = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(first.exitCode == 0, "\(first)")
            #expect(try resourceStatuses(after: seen) == [401, 200], "a fresh session knows no nonce: one challenge")
            seen = try Self.log(idp).count
            let second = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(second.exitCode == 0 && second.stdoutText.contains("scripted-user-1"), "\(second)")
            #expect(try resourceStatuses(after: seen) == [200], "the next process did not send the nonce first")
            // The tokens survived the nonce being saved beside them.
            #expect(try cli.run(["token"]).exitCode == 0)
        }
    }

    // MARK: client_id once (RFC 9126 §2.1)

    /// A pushed authorization request authenticated with `private_key_jwt` (its assertion verified
    /// by the server) or `tls_client_auth`: the server refuses any repeated parameter.
    @Test(arguments: ["private_key_jwt", "tls_client_auth"])
    func aPushedRequestNamesTheClientOnce(method: String) throws {
        let curl = "/usr/bin/curl"
        try Requirement.requireOrSkip(access(curl, X_OK) == 0 ? curl : nil, "curl is not installed")
        let dir = try TemporaryDirectory(prefix: "latchkey-par-auth-")
        defer { dir.remove() }
        #expect(FileText.write(PEMFixtures.p256PublicKey, to: dir.path + "/client.pub", mode: 0o600))
        #expect(FileText.write(PEMFixtures.p256PKCS8, to: dir.path + "/client.key", mode: 0o600))
        var auth = ["--auth-method", method]
        let scenario: String
        if method == "private_key_jwt" {
            scenario = "par-private-key-jwt"
            auth += ["--client-key-file", dir.path + "/client.key"]
        } else {
            scenario = "par-required"
            let (cert, key) = try Self.clientCertificate(in: dir.path)
            auth += ["--client-cert-file", cert, "--client-cert-key-file", key]
        }
        try withScriptedIdP(scenario, ["--client-public-key", dir.path + "/client.pub"]) { idp, cli in
            let child = try cli.start(["login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c"] + auth)
            let line = child.nextLine(timeout: .seconds(30))
            if let line, let url = try? JSONParser().parseObject(Array(line.utf8))["url"]?.stringValue {
                _ = try ProcessRunner.run(curl, ["-s", "-L", "-o", "/dev/null", url])
            }
            let result = child.waitForExit(timeout: .seconds(30))
            let push = try #require(try Self.log(idp).first { $0["path"] == "/par" }, "\(idp.logLines())")
            #expect(push["event"] != "duplicate-parameters", "\(method): \(push)")
            #expect(push["status"] == .integer(201), "\(method): \(push)")
            #expect(result.exitCode == 0, "\(method): \(result) \(line ?? "")")
            if method == "private_key_jwt" { #expect(push["client_assertion"]?["ok"] == .bool(true), "\(push)") }
        }
    }

    // MARK: Explicit endpoints win (RFC 8705 §5 aliases stand in for discovered endpoints only)

    @Test func explicitEndpointsAreUsedWithACertificateDespiteTheAliases() throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-mtls-explicit-")
        defer { dir.remove() }
        let (cert, key) = try Self.clientCertificate(in: dir.path)
        try withScriptedIdP("mtls-aliases", ["--approve-after", "1"]) { idp, cli in
            let login = try cli.run(
                [
                    "login", "--json", "--issuer", idp.issuer, "--client-id", "device-1",
                    "--auth-method", "tls_client_auth", "--client-cert-file", cert, "--client-cert-key-file", key,
                    "--token-endpoint", idp.issuer + "/explicit/token",
                    "--revocation-endpoint", idp.issuer + "/explicit/revoke"
                ], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            let refresh = try cli.run(["refresh"])
            #expect(refresh.exitCode == 0, "\(refresh)")
            let logout = try cli.run(["logout"])
            #expect(logout.exitCode == 0, "\(logout)")
            let paths = try Self.log(idp).compactMap { $0["path"]?.stringValue }.filter { !$0.hasPrefix("/.well-known/") && $0 != "/jwks" }
            // The discovered device endpoint goes to its alias; the operator's token and revocation endpoints stay.
            #expect(paths.first == "/mtls/device_authorization", "\(paths)")
            #expect(paths.dropFirst().allSatisfy { $0 == "/explicit/token" || $0 == "/explicit/revoke" }, "\(paths)")
            #expect(paths.filter { $0 == "/explicit/revoke" }.count == 2, "\(paths)")
            #expect(paths.contains("/explicit/token"), "\(paths)")
        }
    }

    // MARK: -v shows no auth_req_id

    /// True when `name` appears in `text` as a JSON member or a form parameter, and each time with
    /// the redaction marker as its value.
    static func everyMentionRedacted(_ name: String, in text: String) -> Bool {
        // A member name is followed by ':' (the same word as a value, in grant_types_supported say, is not).
        let json = text.ranges(of: "\"\(name)\"").map { text[$0.upperBound...] }.filter {
            $0.hasPrefix(":") || $0.hasPrefix(" :") || $0.hasPrefix(": ")
        }
        let form = text.ranges(of: name + "=").map { text[$0.upperBound...] }
        return !(json.isEmpty && form.isEmpty)
            && json.allSatisfy { $0.hasPrefix(":\"[REDACTED]\"") || $0.hasPrefix(": \"[REDACTED]\"") }
            && form.allSatisfy { $0.hasPrefix("[REDACTED]") }
    }

    @Test func verboseCIBALoginShowsNeitherTheRequestHandleNorTokens() throws {
        let idp = try ScriptedIdP(scenario: "ciba", arguments: ["--interval", "1", "--approve-after", "2"])
        defer { idp.stop() }
        try withCLI(["LATCHKEY_CLIENT_SECRET": "s3cret"]) { cli, _ in
            let result = try cli.run(
                [
                    "--verbose", "login", "--json", "--flow", "ciba", "--issuer", idp.issuer,
                    "--client-id", "kiosk-7", "--login-hint", #"{"username":"alice"}"#
                ], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            let verbose = result.stderrText
            #expect(verbose.contains("bc-authorize"), "no verbose output: \(verbose.prefix(400))")
            // The backchannel answer and every poll name it; each time redacted.
            #expect(Self.everyMentionRedacted("auth_req_id", in: verbose), "\(verbose)")
            #expect(verbose.ranges(of: "auth_req_id=[REDACTED]").count >= 2, "polls: \(verbose)")
            for name in ["access_token", "refresh_token", "id_token"] {
                #expect(Self.everyMentionRedacted(name, in: verbose), "\(name): \(verbose)")
            }
            #expect(!verbose.contains("s3cret"))
        }
    }
}
