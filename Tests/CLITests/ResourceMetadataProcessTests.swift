import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `fetch` and `login` that find their way from a resource (RFC 9728) and answer its step-up
/// challenges (RFC 9470), through the binary against the scripted server.
@Suite("resource metadata and step-up against the scripted server", .serialized)
struct ResourceMetadataProcessTests {
    static func log(_ idp: ScriptedIdP) throws -> [JSONObject] { try FetchProcessTests.log(idp) }

    static func hits(_ idp: ScriptedIdP, _ path: String) throws -> [JSONObject] {
        try log(idp).filter { $0["path"] == .string(path) }
    }

    @Test func notSignedInNamesTheIssuerAndTheLoginToRun() throws {
        try withScriptedIdP("resource-metadata", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["fetch", idp.issuer + "/prm-resource?q=1"])
            #expect(result.exitCode == 3, "\(result)")
            #expect(result.stderrText.contains("trusts \(idp.issuer)/"), "\(result.stderrText)")
            #expect(result.stderrText.contains("login --resource-url \(idp.issuer)/prm-resource --client-id ID"), "\(result.stderrText)")
            #expect(result.stdoutText.isEmpty, "the 401's body is not the answer")
            // Nothing interactive started: no device authorization, no token request.
            #expect(try Self.hits(idp, "/device_authorization").isEmpty)
            #expect((try Self.hits(idp, "/prm-resource").first?["headers"]?["authorization"] ?? .null) == .null)
        }
    }

    @Test func signInRunsTheDeviceLoginWithTheResourceAndRetries() throws {
        try withScriptedIdP("resource-metadata", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(
                ["--json", "fetch", "--sign-in", "--client-id", "cli-test", idp.issuer + "/prm-resource"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText == #"{"resource": "prm", "subject": "scripted-user-1"}"#, "stdout is the answer's only")
            #expect(result.stderrText.contains(#""event":"authorized""#), "the login's events go to stderr: \(result.stderrText)")
            let device = try #require(try Self.hits(idp, "/device_authorization").first)
            #expect(device["params"]?["resource"] == .string(idp.issuer + "/prm-resource"))
            #expect(device["params"]?["scope"] == .string("openid profile"))
            // The issuer as its own metadata spells it (no trailing slash), remembered by the profile.
            let status = try cli.run(["--json", "status"])
            #expect(status.stdoutText.contains(#""issuer":"\#(idp.issuer)""#), "\(status)")
        }
    }

    @Test func loginResourceURLReadsTheMetadata() throws {
        try withScriptedIdP("resource-metadata", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(
                ["login", "--resource-url", idp.issuer + "/prm-resource", "--client-id", "cli-test"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            let device = try #require(try Self.hits(idp, "/device_authorization").first)
            #expect(device["params"]?["resource"] == .string(idp.issuer + "/prm-resource"))
            let fetched = try cli.run(["fetch", idp.issuer + "/prm-resource"])
            #expect(fetched.exitCode == 0, "\(fetched)")
        }
    }

    @Test func severalAuthorizationServersAreTheUsersChoice() throws {
        try withScriptedIdP("resource-metadata-several", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["fetch", "--sign-in", "--client-id", "cli-test", idp.issuer + "/prm-resource"])
            #expect(result.exitCode == 2, "\(result)")
            #expect(result.stderrText.contains("several authorization servers"), "\(result.stderrText)")
            #expect(result.stderrText.contains("http://127.0.0.1:9/other"), "\(result.stderrText)")
            #expect(try Self.hits(idp, "/device_authorization").isEmpty)
            let chosen = try cli.run(
                ["fetch", "--sign-in", "--issuer", idp.issuer, "--client-id", "cli-test", idp.issuer + "/prm-resource"],
                timeout: .seconds(60))
            #expect(chosen.exitCode == 0, "\(chosen)")
        }
    }

    @Test func metadataOnAnotherOriginIsRefusedUnfetched() throws {
        try withScriptedIdP("resource-metadata-other-origin", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["fetch", "--sign-in", "--client-id", "cli-test", idp.issuer + "/prm-resource"])
            #expect(result.exitCode == 7, "\(result)")
            #expect(result.stderrText.contains("not on its own origin"), "\(result.stderrText)")
            #expect(try Self.hits(idp, "/device_authorization").isEmpty)
        }
    }

    @Test func metadataAboutAnotherResourceIsExitSeven() throws {
        try withScriptedIdP("resource-metadata-wrong-resource", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["fetch", "--sign-in", "--client-id", "cli-test", idp.issuer + "/prm-resource"])
            #expect(result.exitCode == 7, "\(result)")
            #expect(try Self.hits(idp, "/device_authorization").isEmpty)
            let login = try cli.run(["login", "--resource-url", idp.issuer + "/prm-resource", "--client-id", "cli-test"])
            #expect(login.exitCode == 7, "\(login)")
        }
    }

    @Test func signInNeedsAClient() throws {
        try withScriptedIdP("resource-metadata", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["fetch", "--sign-in", idp.issuer + "/prm-resource"])
            #expect(result.exitCode == 2, "\(result)")
            #expect(result.stderrText.contains("--sign-in needs a client"), "\(result.stderrText)")
            #expect(try Self.hits(idp, "/prm-resource").isEmpty, "refused before anything is sent")
        }
    }

    @Test func aProfileAtAnotherIssuerIsNeverSwitchedAndItsTokenStaysHome() throws {
        try withScriptedIdP("resource-metadata-several", ["--approve-after", "1"]) { idp, cli in
            // Signed in at this issuer, asking a resource that trusts only another one.
            try FetchProcessTests.login(cli, idp)
            try withScriptedIdP("resource-metadata", ["--approve-after", "1"]) { other, _ in
                let result = try cli.run(["fetch", "--sign-in", other.issuer + "/prm-resource"])
                #expect(result.exitCode == 3, "\(result)")
                #expect(result.stderrText.contains("use another profile"), "\(result.stderrText)")
                #expect(try Self.hits(other, "/device_authorization").isEmpty)
                // Only the resource's own path saw the token; the issuer it names saw no request with it.
                for hit in try Self.log(other) where hit["path"] != .string("/prm-resource") {
                    #expect((hit["headers"]?["authorization"] ?? .null) == .null, "\(hit)")
                }
            }
        }
    }

    @Test func stepUpWithoutSignInIsExitThreeWithTheEvent() throws {
        try withScriptedIdP("step-up", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let result = try cli.run(["--json", "fetch", idp.issuer + "/step-up"])
            #expect(result.exitCode == 3, "\(result)")
            #expect(result.stdoutLines.first == #"{"event":"step_up_required","acr_values":"mfa","max_age":300}"#, "\(result)")
            let human = try cli.run(["fetch", idp.issuer + "/step-up"])
            #expect(human.exitCode == 3)
            #expect(human.stderrText.contains(#"acr_values "mfa", max_age 300 s"#), "\(human.stderrText)")
            #expect(try Self.hits(idp, "/device_authorization").count == 1, "nothing interactive started")
        }
    }

    @Test func stepUpSignsInAgainAskingForItAndRetries() throws {
        try withScriptedIdP("step-up", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let result = try cli.run(["fetch", "--sign-in", idp.issuer + "/step-up"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText.contains(#""acr": "mfa""#), "\(result)")
            let second = try #require(try Self.hits(idp, "/device_authorization").last)
            #expect(second["params"]?["acr_values"] == .string("mfa"))
            #expect(second["params"]?["max_age"] == .string("300"))
            let status = try cli.run(["--json", "status"])
            #expect(status.stdoutText.contains(#""acr":"mfa""#), "\(status)")
            #expect(status.stdoutText.contains(#""auth_time":""#), "\(status)")
        }
    }

    @Test func aSecondStepUpChallengeIsExitTenNotALoop() throws {
        try withScriptedIdP("step-up-always", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let result = try cli.run(["fetch", "--sign-in", idp.issuer + "/step-up"], timeout: .seconds(60))
            #expect(result.exitCode == 10, "\(result)")
            #expect(result.stderrText.contains("again after the step-up"), "\(result.stderrText)")
            #expect(try Self.hits(idp, "/device_authorization").count == 2, "one step-up sign-in, no more")
            #expect(try Self.hits(idp, "/step-up").count == 2)
        }
    }

    @Test func anIDTokenWithTheWrongAcrIsExitEight() throws {
        try withScriptedIdP("step-up-wrong-acr", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(
                ["login", "--issuer", idp.issuer, "--client-id", "cli-test", "--acr-values", "mfa hwk", "--max-age", "60"],
                timeout: .seconds(60))
            #expect(result.exitCode == 8, "\(result)")
            #expect(result.stderrText.contains(#"acr is "pwd""#), "\(result.stderrText)")
            let device = try #require(try Self.hits(idp, "/device_authorization").first)
            #expect(device["params"]?["acr_values"] == .string("mfa hwk"))
            #expect(device["params"]?["max_age"] == .string("60"))
        }
    }

    @Test func withoutASessionTheRequestGoesWithoutAToken() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            // An open endpoint answers as it is; a bare 401 without metadata is "not signed in".
            let open = try cli.run(["fetch", idp.issuer + "/.well-known/openid-configuration"])
            #expect(open.exitCode == 0, "\(open)")
            #expect(open.stdoutText.contains(#""issuer""#), "\(open)")
            let closed = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(closed.exitCode == 3, "\(closed)")
        }
    }
}
