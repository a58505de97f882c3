import FoundationEssentials
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import Testing

@testable import latchkey

@Suite("RFC 3339")
struct RFC3339Tests {
    @Test func formatsKnownInstants() {
        #expect(RFC3339.format(epochSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(epochSeconds: 1_767_268_800) == "2026-01-01T12:00:00Z")
        #expect(RFC3339.format(epochSeconds: 951_782_400) == "2000-02-29T00:00:00Z")
        #expect(RFC3339.format(epochSeconds: 4_102_444_799) == "2099-12-31T23:59:59Z")
        #expect(RFC3339.format(epochSeconds: -1) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.format(Timestamp(timeIntervalSince1970: 1_767_268_800.9)) == "2026-01-01T12:00:00Z")
    }

    @Test func parsesZuluOffsetsAndFractions() {
        #expect(RFC3339.parse("2026-01-01T12:00:00Z")?.timeIntervalSince1970 == 1_767_268_800)
        #expect(RFC3339.parse("2026-01-01t12:00:00z")?.timeIntervalSince1970 == 1_767_268_800)
        #expect(RFC3339.parse("2026-01-01 12:00:00Z")?.timeIntervalSince1970 == 1_767_268_800)
        #expect(RFC3339.parse("2026-01-01T14:30:00+02:30")?.timeIntervalSince1970 == 1_767_268_800)
        #expect(RFC3339.parse("2026-01-01T07:00:00-05:00")?.timeIntervalSince1970 == 1_767_268_800)
        #expect(RFC3339.parse("2026-01-01T12:00:00.5Z")?.timeIntervalSince1970 == 1_767_268_800.5)
        #expect(RFC3339.parse("2000-02-29T00:00:00Z")?.timeIntervalSince1970 == 951_782_400)
    }

    @Test func rejectsMalformedTimes() {
        for bad in [
            "", "2026-01-01", "2026-01-01T12:00:00", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
            "2026-01-01T24:00:00Z", "2026-01-01T12:00:00+0200", "2026-01-01T12:00:00.Z",
            "2026-01-01T12:00:00Zjunk", "20260101T120000Z", "2026-01-01T12:60:00Z"
        ] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func roundTripsAcrossCenturies() {
        for seconds: Int64 in [0, 86_399, 86_400, 951_868_799, 1_000_000_000, 2_147_483_647, 32_503_680_000, -86_400 * 365] {
            let text = RFC3339.format(epochSeconds: seconds)
            #expect(RFC3339.parse(text).map { Int64($0.timeIntervalSince1970) } == seconds, "\(text)")
        }
    }
}

@Suite("Token output formats")
struct TokenFormatTests {
    let token = Token(
        accessToken: "at-123", tokenType: "Bearer", refreshToken: "rt", expiresAt: Timestamp(timeIntervalSince1970: 1_767_268_800),
        scope: "openid offline_access")

    @Test func bareAndHeader() {
        #expect(TokenCommand.render(token, format: "bare") == "at-123\n")
        #expect(TokenCommand.render(token, format: "header") == "Authorization: Bearer at-123\n")
        var dpop = token
        dpop.tokenType = "DPoP"
        #expect(TokenCommand.render(dpop, format: "header") == "Authorization: DPoP at-123\n")
    }

    @Test func jsonShape() throws {
        let text = TokenCommand.render(token, format: "json")
        #expect(
            text == #"{"access_token":"at-123","token_type":"Bearer","expires_at":"2026-01-01T12:00:00Z","scope":"openid offline_access"}"#
                + "\n")
        var bare = token
        bare.expiresAt = nil
        bare.scope = nil
        let object = try JSONParser().parseObject(Array(TokenCommand.render(bare, format: "json").utf8))
        #expect(object["expires_at"] == .null && object["scope"] == .null)
    }

    @Test func execCredentialShape() throws {
        let object = try JSONParser().parseObject(Array(TokenCommand.render(token, format: "exec-credential").utf8))
        #expect(object.keys == ["apiVersion", "kind", "status"])
        #expect(object["apiVersion"] == "client.authentication.k8s.io/v1")
        #expect(object["kind"] == "ExecCredential")
        #expect(object["status"]?["token"] == "at-123")
        #expect(object["status"]?["expirationTimestamp"] == "2026-01-01T12:00:00Z")
        var noExpiry = token
        noExpiry.expiresAt = nil
        let other = try JSONParser().parseObject(Array(TokenCommand.render(noExpiry, format: "exec-credential").utf8))
        #expect(other["status"]?.objectValue?.keys == ["token"])
    }
}

@Suite("Login JSON Lines events")
struct LoginEventJSONTests {
    @Test func verificationEvent() {
        let response = DeviceAuthorizationResponse(
            deviceCode: "dc", userCode: "WDJB-MJHT", verificationURI: "https://i/device",
            verificationURIComplete: nil, expiresIn: 600, interval: 5)
        let line = LoginPresenter.jsonLine(
            .verification(response, expiresAt: Timestamp(timeIntervalSince1970: 1_767_268_800)),
            issuer: "https://i/api/oidc"
        ).jsonText
        // The wave-1 members, then the two added for cross-device safety (issue 17), at the end.
        #expect(
            line
                == #"{"event":"verification","verification_uri":"https://i/device","verification_uri_complete":null,"user_code":"WDJB-MJHT","expires_at":"2026-01-01T12:00:00Z","interval":5,"issuer":"https://i/api/oidc","verification_host_matches_issuer":true}"#
        )
    }

    @Test func otherEvents() throws {
        #expect(LoginPresenter.jsonLine(.pending(nextPollIn: 5)).jsonText == #"{"event":"pending","next_poll_in":5}"#)
        #expect(LoginPresenter.jsonLine(.retrying(reason: "x", nextPollIn: 7)).jsonText == #"{"event":"pending","next_poll_in":7}"#)
        #expect(LoginPresenter.jsonLine(.slowDown(interval: 10)).jsonText == #"{"event":"slow_down","interval":10}"#)
        let url = try #require(HTTPURL(string: "https://i/authorize?x=1"))
        #expect(
            LoginPresenter.jsonLine(.authorizationURL(url)).jsonText == #"{"event":"authorization_url","url":"https://i/authorize?x=1"}"#)
        let authorized = LoginPresenter.jsonLine(
            .authorized(
                issuer: "https://i", subject: nil, scope: "openid",
                expiresAt: Timestamp(timeIntervalSince1970: 0), idTokenVerified: false,
                tokenBinding: .dpop))
        #expect(
            authorized.jsonText
                == #"{"event":"authorized","issuer":"https://i","subject":null,"scope":"openid","expires_at":"1970-01-01T00:00:00Z","id_token_verified":false,"token_binding":"dpop"}"#
        )
        let warning = LoginPresenter.jsonLine(.offlineAccessWithoutDPoP(dpopOffered: false))
        #expect(warning.objectValue?.keys == ["event", "code", "message"])
        #expect(warning.objectValue?["code"] == "offline_access_unbound")
    }

    /// The warning advises only what can work: DPoP where the provider offers it (not for a git
    /// profile), a key source whose key is not on the disk where the profile has none, and always
    /// leaving offline_access out.
    @Test func offlineAccessAdviceFollowsTheProviderAndTheProfile() {
        let unbound = "offline_access without DPoP: the refresh token is a bearer secret on this device; "
        let keySource =
            "keep the token file under a key that is not on this disk (--key-source passphrase or credential, at a profile's first login)"
        let machine = OfflineAccessAdvice(keySource: .machine, gitProfile: false)
        #expect(machine.message(dpopOffered: true) == unbound + "the provider offers DPoP: sign in with --dpop auto to bind it to a key")
        #expect(
            machine.message(dpopOffered: false)
                == unbound + "the provider offers no DPoP: " + keySource + ", or leave offline_access out of --scope")
        #expect(
            OfflineAccessAdvice(keySource: .machine, gitProfile: true).message(dpopOffered: true)
                == unbound + "a git profile is a Bearer profile: " + keySource + ", or leave offline_access out of --scope")
        for source in [KeySource.passphrase, .credential] {
            #expect(
                OfflineAccessAdvice(keySource: source, gitProfile: false).message(dpopOffered: false)
                    == unbound + "the provider offers no DPoP: leave offline_access out of --scope")
        }
    }
}

@Suite("Profile settings file")
struct ProfileSettingsTests {
    @Test func roundTripsEveryMember() throws {
        var client = ClientConfiguration(issuer: "https://idp.example/realms/x", clientID: "cli")
        client.scopes = ["openid", "email"]
        client.authMethod = .clientSecretPost
        client.pkce = .always
        client.redirectURI = "http://127.0.0.1:53682/callback"
        client.endpoints = EndpointOverrides(
            deviceAuthorization: "https://idp.example/device", token: "https://idp.example/token",
            authorization: nil, revocation: "https://idp.example/revoke", jwksURI: nil)
        client.allowedAlgorithms = ["ES256"]
        client.leeway = 30
        var settings = ProfileSettings(client: client, keySource: .file(path: "/etc/latchkey/key"))
        settings.offlineAccessWarned = true
        let text = settings.json.jsonText
        #expect(!text.contains("secret\":"))
        let back = try ProfileSettings(json: try JSONParser().parseObject(Array(text.utf8)), path: "p")
        #expect(back == settings)
    }

    @Test func defaultsForMissingMembers() throws {
        let object = try JSONParser().parseObject(Array(#"{"issuer":"https://i","client_id":"c"}"#.utf8))
        let settings = try ProfileSettings(json: object, path: "p")
        #expect(settings.client.scopes == ["openid", "offline_access"])
        #expect(settings.client.authMethod == .none)
        #expect(settings.keySource == .machine)
    }

    @Test func badMembersAreReported() throws {
        for bad in [
            #"{"client_id":"c"}"#, #"{"issuer":"i","client_id":"c","key_source":"tpm"}"#,
            #"{"issuer":"i","client_id":"c","scopes":"openid"}"#, #"{"issuer":"i","client_id":"c","pkce":"maybe"}"#,
            #"{"issuer":"i","client_id":"c","offline_access_warned":"yes"}"#
        ] {
            let object = try JSONParser().parseObject(Array(bad.utf8))
            #expect(throws: ProfileFileError.self, "\(bad)") { try ProfileSettings(json: object, path: "p") }
        }
    }
}

@Suite("Error classification")
struct FailureReportTests {
    /// Issue 33 §3: a configuration problem is worded once. `login`'s usage error and the report of
    /// the same problem from any other path say the same line and hint (they were two tables).
    @Test func aConfigurationProblemIsWordedTheSameByLoginAndByTheReport() throws {
        let problems: [ConfigurationProblem] = [
            .unusableRedirectURI("x", reason: "r"), .unusableEndpoint(member: "token_endpoint", url: "http://x"),
            .unusableResource("r#f"), .clientCredentialsNeedClientAuthentication, .backchannelNeedsClientAuthentication,
            .missingClientSecret(method: .clientSecretPost), .missingClientCertificate(method: .tlsClientAuth),
            .missingClientKey, .missingAssertion, .missingLoginHint
        ]
        for problem in problems {
            #expect(ConfigurationProblemWording.isUsage(problem), "\(problem)")
            let usage = try #require(LoginProblemWording.error(problem) as? UsageError, "\(problem)")
            let report = FailureReport(LatchkeyError.configuration(problem))
            #expect(report.exitCode == 2)
            #expect(usage.message == report.message, "\(problem)")
            if let hint = ConfigurationProblemWording.words(problem).hint {
                #expect(usage.hint == hint && report.hint == hint, "\(problem)")
            }
        }
        // Not a login option's fault: the library's error, worded by the same table.
        #expect(LoginProblemWording.error(.pushedAuthorizationRequired) is LatchkeyError)
        #expect(
            FailureReport(LatchkeyError.configuration(.pushedAuthorizationRequired)).message.hasSuffix("; use --par auto or --par always"))
    }

    @Test func exitCodesPerErrorFamily() {
        #expect(FailureReport(UsageError("x")).exitCode == 2)
        #expect(FailureReport(LatchkeyError.notSignedIn).exitCode == 3)
        #expect(FailureReport(LatchkeyError.reauthenticationRequired(reason: "r")).exitCode == 3)
        #expect(FailureReport(LatchkeyError.denied(code: "access_denied", description: nil)).exitCode == 4)
        #expect(FailureReport(LatchkeyError.denied(code: "access_denied", description: nil)).code == "access_denied")
        #expect(FailureReport(LatchkeyError.expired(reason: "r")).exitCode == 5)
        #expect(FailureReport(LatchkeyError.network(.dnsFailure(host: "h"))).exitCode == 6)
        #expect(FailureReport(HTTPErrorSample.tls).exitCode == 6)
        #expect(FailureReport(HTTPErrorSample.malformed).exitCode == 7)
        #expect(FailureReport(LatchkeyError.issuerMismatch(expected: "a", got: "b")).exitCode == 7)
        #expect(FailureReport(JOSEError.invalidSignature).exitCode == 8)
        #expect(FailureReport(TokenStoreError.passphraseRequired).exitCode == 9)
        #expect(FailureReport(LatchkeyError.storage(TokenStoreError.truncated(path: "p"))).exitCode == 9)
        #expect(FailureReport(ProfileFileError.invalid(path: "p", reason: "r")).exitCode == 9)
        #expect(FailureReport(CancellationError()).exitCode == 130)
        #expect(FailureReport(LatchkeyError.cancelled).exitCode == 130)
        struct Odd: Error {}
        #expect(FailureReport(Odd()).exitCode == 1)
    }

    @Test func messagesStayOnOneLine() {
        let report = FailureReport(UsageError("two\nlines", hint: "also\r\nhere"))
        #expect(!TerminalText.singleLine(report.message).contains("\n"))
        #expect(!TerminalText.singleLine(report.hint ?? "").contains("\n"))
    }
}

enum HTTPErrorSample {
    static let tls = HTTPError.tlsFailure(reason: "certificate expired")
    static let malformed = HTTPError.protocolViolation(reason: "bad status line")
}
