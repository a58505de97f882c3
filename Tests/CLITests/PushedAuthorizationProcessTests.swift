import Glibc
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// PAR (RFC 9126), resource indicators, `--param` and the client-credentials grant through the
/// built binary, against the scripted server, which logs every parameter it receives.
@Suite("latchkey login --par/--resource/--param and --flow client-credentials (scripted server)")
struct PushedAuthorizationProcessTests {
    static func log(_ idp: ScriptedIdP) -> [JSONObject] {
        idp.logLines().compactMap { try? JSONParser().parseObject(Array($0.utf8)) }
    }

    static func curl() throws -> String {
        try Requirement.requireOrSkip(access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil, "curl is not installed")
    }

    @Test func aRequiredPushCarriesEverythingAndTheURLOnlyTheReference() throws {
        let curl = try Self.curl()
        try withScriptedIdP("par-required") { idp, cli in
            let child = try cli.start([
                "login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c",
                "--resource", "https://api.example/v1", "--resource", "urn:example:second",
                "--param", "prompt=consent", "--param", "audience=https://api.example"
            ])
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
            let query = String(url.split(separator: "?", maxSplits: 1).last ?? "")
            #expect(
                query.split(separator: "&").map { String($0.split(separator: "=").first ?? "") }
                    == ["client_id", "request_uri", "response_type", "scope", "redirect_uri", "prompt"], "authorization URL: \(url)")
            let browser = try ProcessRunner.run(curl, ["-s", "-L", "-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(browser.stdoutText == "200", "\(browser)")
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result)")
            let log = Self.log(idp)
            let push = try #require(log.first { $0["path"] == "/par" })
            let params = try #require(push["params"]?.objectValue)
            #expect(params["response_type"] == "code" && params["client_id"] == "c" && params["code_challenge_method"] == "S256")
            #expect(params["state"] != nil && params["nonce"] != nil && params["code_challenge"] != nil && params["redirect_uri"] != nil)
            #expect(params["prompt"] == "consent" && params["audience"] == "https://api.example")
            #expect(params["resource"] != nil)  // the server log keeps the first of repeated names
            #expect(push["status"] == .integer(201))
            #expect(log.contains { $0["event"] == "token-issued" && $0["params"]?["resource"] == "https://api.example/v1" })
            // Remembered in the profile: the next login sends them again without the flags.
            let profile = try JSONParser().parseObject(Array((FileText.read(cli.stateDirectory + "/profiles/default.json") ?? "").utf8))
            #expect(profile["resources"] == .array(["https://api.example/v1", "urn:example:second"]))
            #expect(profile["parameters"]?.arrayValue?.count == 2)
        }
    }

    /// The names and (decoded) values of a URL's query, in order.
    static func query(_ url: String) -> [(String, String)] {
        FormURLEncoding.decode(String(url.split(separator: "?", maxSplits: 1).last ?? ""))
    }

    /// OpenID Connect Core §6.2 (idpyoidc): an OpenID request by reference carries response_type,
    /// scope and redirect_uri beside request_uri, equal to the pushed values, and nothing else.
    @Test func anOpenIDStrictProviderGetsResponseTypeAndScopeBesideTheRequestURI() throws {
        let curl = try Self.curl()
        try withScriptedIdP("par-oidc-strict") { idp, cli in
            let child = try cli.start([
                "login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c",
                "--timeout", "20"
            ])
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
            let query = Self.query(url)
            #expect(
                query.map(\.0) == ["client_id", "request_uri", "response_type", "scope", "redirect_uri", "prompt"],
                "authorization URL: \(url)")
            let browser = try ProcessRunner.run(curl, ["-s", "-L", "-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(browser.stdoutText == "200", "\(browser) \(idp.logLines())")
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result)")
            let push = try #require(Self.log(idp).first { $0["path"] == "/par" }?["params"]?.objectValue)
            for (name, value) in query where name != "request_uri" {
                #expect(push[name] == .string(value), "\(name) in the URL is not the pushed value")
            }
            #expect(push["scope"] == "openid offline_access")
        }
    }

    @Test func aPushWithoutOpenIDPutsOnlyTheReferenceInTheURL() throws {
        try withScriptedIdP("par-required") { idp, cli in
            let child = try cli.start([
                "login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c",
                "--scope", "profile offline_access", "--timeout", "20"
            ])
            defer { child.terminate() }
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
            #expect(Self.query(url).map(\.0) == ["client_id", "request_uri"], "authorization URL: \(url)")
        }
    }

    @Test func parNeverAgainstAProviderThatRequiresItFailsBeforeAnythingIsPushed() throws {
        try withScriptedIdP("par-required") { idp, cli in
            let result = try cli.run([
                "login", "--flow", "browser", "--par", "never", "--issuer", idp.issuer, "--client-id", "c",
                "--timeout", "5"
            ])
            #expect(result.exitCode == 2, "\(result)")
            #expect(
                result.stderrText.contains("requires pushed authorization requests") && result.stderrText.contains("--par"),
                "\(result.stderrText)")
            #expect(Self.log(idp).allSatisfy { ($0["path"]?.stringValue ?? "").hasPrefix("/.well-known/") }, "\(idp.logLines())")
        }
    }

    @Test func aPushAnswerWithoutRequestURIIsAProtocolViolation() throws {
        try withScriptedIdP("par-no-request-uri") { idp, cli in
            let result = try cli.run([
                "login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c",
                "--timeout", "5"
            ])
            #expect(result.exitCode == 7, "\(result)")
            #expect(result.stdoutText.contains("request_uri") && !result.stdoutText.contains("authorization_url"), "\(result.stdoutText)")
        }
    }

    @Test func anExpiredRequestURIIsAClearExpiry() throws {
        let curl = try Self.curl()
        try withScriptedIdP("par-expired") { idp, cli in
            let child = try cli.start(["login", "--json", "--flow", "paste", "--issuer", idp.issuer, "--client-id", "c"], stdin: .pipe)
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
            let redirect = try ProcessRunner.run(curl, ["-s", "-o", "/dev/null", "-w", "%{redirect_url}", url]).stdoutText
            #expect(redirect.contains("error=invalid_request_uri"), "\(redirect)")
            #expect(child.write(Array((redirect + "\n").utf8)))
            child.closeStandardInput()
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 5, "\(result)")
            #expect(result.stdoutText.contains("pushed authorization request"), "\(result.stdoutText)")
        }
    }

    @Test func protocolOwnedParametersAndBadResourcesAreUsageErrors() throws {
        try withScriptedIdP("ok") { idp, cli in
            for args in [
                ["--param", "state=x"], ["--param", "client_assertion=x"], ["--param", "redirect_uri=https://evil/"],
                ["--param", "resource=https://a/"], ["--param", "noequals"], ["--param", "=v"],
                ["--resource", "https://api.example/#frag"], ["--resource", "relative/path"],
                ["--par", "sometimes"]
            ] {
                let result = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"] + args)
                #expect(result.exitCode == 2, "\(args): \(result)")
            }
            #expect(idp.logLines().isEmpty, "a refused option sent something: \(idp.logLines())")
        }
    }

    @Test func theDeviceRequestCarriesResourcesAndParameters() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(
                [
                    "login", "--json", "--issuer", idp.issuer, "--client-id", "c",
                    "--resource", "https://api.example/v1", "--param", "acr_values=urn:mfa"
                ], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            let device = try #require(Self.log(idp).first { $0["path"] == "/device_authorization" })
            #expect(device["params"]?["resource"] == "https://api.example/v1" && device["params"]?["acr_values"] == "urn:mfa")
            let poll = Self.log(idp).filter { $0["path"] == "/token" }
            #expect(
                !poll.isEmpty
                    && poll.allSatisfy { $0["params"]?["resource"] == "https://api.example/v1" && $0["params"]?["acr_values"] == nil })
        }
    }

    @Test func clientCredentialsSignInRenewalStatusAndLogoutNeverShowTheSecret() throws {
        let secret = "cc-secret-\(getpid())-never-shown"
        let idp = try ScriptedIdP(scenario: "client-credentials", arguments: ["--at-ttl", "90"])
        defer { idp.stop() }
        try withCLI(["LATCHKEY_CLIENT_SECRET": secret]) { cli, _ in
            let login = try cli.run([
                "-v", "login", "--json", "--flow", "client-credentials", "--issuer", idp.issuer,
                "--client-id", "machine-1", "--scope", "machine", "--resource", "https://api.example/v1"
            ])
            #expect(login.exitCode == 0, "\(login)")
            #expect(login.stdoutText.contains(#""subject":"machine-1""#) && login.stdoutText.contains(#""id_token_verified":false"#))
            let status = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(status["subject"] == "machine-1", "\(status)")
            // 90 s tokens are inside a 120 s --min-ttl: every `token` runs the grant again.
            let cached = try cli.run(["-v", "token"])
            let renewed = try cli.run(["-v", "token", "--min-ttl", "120"])
            #expect(cached.exitCode == 0 && renewed.exitCode == 0, "\(renewed)")
            #expect(cached.stdoutText != renewed.stdoutText)
            let grants = Self.log(idp).filter { $0["params"]?["grant_type"] == "client_credentials" }
            #expect(grants.count == 2, "\(idp.logLines())")
            #expect(
                grants.allSatisfy {
                    $0["params"]?["scope"] == "machine" && $0["params"]?["resource"] == "https://api.example/v1"
                        && $0["headers"]?["authorization"] == "Basic"
                })
            let logout = try cli.run(["-v", "logout"])
            #expect(logout.exitCode == 0, "\(logout)")
            #expect(Self.log(idp).contains { $0["path"] == "/revoke" && $0["params"]?["token_type_hint"] == "access_token" })
            let basic = "Basic " + base64(Array("machine-1:\(secret)".utf8))
            for output in [login, cached, renewed, logout] {
                #expect(!output.stderrText.contains(secret) && !output.stdoutText.contains(secret))
                #expect(!output.stderrText.contains(basic) && !output.stderrText.contains(String(basic.dropFirst(6))))
            }
            #expect(renewed.stderrText.contains("> POST \(idp.issuer)/token"), "verbose shows the exchange")
        }
    }

    @Test func clientCredentialsNeedAConfidentialClient() throws {
        try withScriptedIdP("client-credentials") { idp, cli in
            let result = try cli.run(["login", "--flow", "client-credentials", "--issuer", idp.issuer, "--client-id", "m"])
            #expect(result.exitCode == 2, "\(result)")
            #expect(idp.logLines().isEmpty)
        }
    }
}

/// Standard base64 (for the expected `Authorization: Basic` value).
private func base64(_ bytes: [UInt8]) -> String {
    let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        let n = min(3, bytes.count - i)
        var v = UInt32(bytes[i]) << 16
        if n > 1 { v |= UInt32(bytes[i + 1]) << 8 }
        if n > 2 { v |= UInt32(bytes[i + 2]) }
        out.append(table[Int(v >> 18 & 63)]); out.append(table[Int(v >> 12 & 63)])
        out.append(n > 1 ? table[Int(v >> 6 & 63)] : UInt8(ascii: "="))
        out.append(n > 2 ? table[Int(v & 63)] : UInt8(ascii: "="))
        i += 3
    }
    return String(decoding: out, as: UTF8.self)
}
