import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// RFC 8707 resource indicators and extra request parameters: what is accepted, what is refused,
/// where each is sent, and that the profile keeps them.
@Suite struct RequestExtensionTests {
    let clock = VirtualClock()

    @Test func resourceIndicatorsMustBeAbsoluteURIsWithoutFragment() {
        for good in [
            "https://api.example/v1", "https://api.example/v1?x=1", "urn:example:resource", "http://127.0.0.1:8080/",
            "a+b.c-d:x"
        ] {
            #expect(ResourceIndicator.isValid(good), "\(good)")
        }
        for bad in [
            "", "api.example/v1", "/v1", "https://api.example/v1#frag", "https://api.example/a b", ":nothing",
            "https:", "1https://x", "https://api.example/\u{7}", "https://ápi.example/"
        ] {
            #expect(!ResourceIndicator.isValid(bad), "\(bad)")
        }
    }

    @Test func everyProtocolOwnedNameIsRefused() {
        for name in RequestParameter.protocolOwnedNames + ["State", "CLIENT_ID", "client_assertion_jwt", "code_challenge_x"] {
            #expect(RequestParameter.usable(name: name, value: "x") == nil, "\(name) was accepted")
            #expect(RequestParameter.isProtocolOwned(name), "\(name)")
        }
        for name in ["", "a b", "a=b", "a&b", "ünï"] { #expect(RequestParameter.usable(name: name, value: "x") == nil, "\(name)") }
        #expect(RequestParameter.usable(name: "prompt", value: "a\nb") == nil)
        for name in ["audience", "prompt", "acr_values", "ui_locales", "max_age"] {
            #expect(RequestParameter.usable(name: name, value: "v") != nil, "\(name) was refused")
        }
        #expect(RequestParameter.usable(name: "audience", value: "https://x?a=b=c")?.value == "https://x?a=b=c")
        // The refusal says why, so a program words it without working it out again.
        func refusal(_ name: String, _ value: String) -> RequestParameter.Refusal? {
            do {
                _ = try RequestParameter(name: name, value: value)
                return nil
            } catch {
                guard case .configuration(.unusableParameter(name, let refusal)) = error else { return nil }
                return refusal
            }
        }
        #expect(refusal("State", "x") == .protocolOwned)
        #expect(refusal("a b", "x") == .unusableName && refusal("", "x") == .unusableName)
        #expect(refusal("prompt", "a\u{7F}b") == .controlCharacterInValue)
        #expect(refusal("prompt", "login") == nil)
    }

    @Test func theDeviceRequestCarriesResourcesAndExtras() async throws {
        var c = testConfiguration()
        c.resources = ["https://api.example/a", "https://api.example/b"]
        c.extraParameters = [RequestParameter.usable(name: "audience", value: "aud-1")!]
        let t = ScriptedTransport(clock: clock, script: [.reply(DeviceFlowTests.standardDevice)])
        let client = try TokenClient.testing(configuration: c, metadata: testMetadata(), transport: t, random: CountingRandom())
        _ = try await DeviceAuthorizationFlow(client: client, time: clock, random: CountingRandom()).start()
        let form = FormURLEncoding.decode(String(decoding: t.sent[0].request.body, as: UTF8.self))
        #expect(form.filter { $0.0 == "resource" }.map(\.1) == ["https://api.example/a", "https://api.example/b"])
        #expect(form.contains { $0 == ("audience", "aud-1") })
        #expect(form.filter { $0.0 == "client_id" }.count == 1)
    }

    @Test func theDeviceRequestCarriesTheSignInsAuthenticationRequirement() async throws {
        var c = testConfiguration()
        c.extraParameters = [RequestParameter.usable(name: "max_age", value: "9")!]
        let t = ScriptedTransport(clock: clock, script: [.reply(DeviceFlowTests.standardDevice)])
        var client = try TokenClient.testing(configuration: c, metadata: testMetadata(), transport: t, random: CountingRandom())
        client.authentication = AuthenticationRequirement(acrValues: ["mfa"], maxAge: 300)
        _ = try await DeviceAuthorizationFlow(client: client, time: clock, random: CountingRandom()).start()
        let form = FormURLEncoding.decode(String(decoding: t.sent[0].request.body, as: UTF8.self))
        #expect(form.filter { $0.0 == "acr_values" }.map(\.1) == ["mfa"])
        #expect(form.filter { $0.0 == "max_age" }.map(\.1) == ["300"], "the sign-in's max_age replaces the profile's")
    }

    @Test func everyTokenRequestCarriesTheResourcesButNotTheExtras() async throws {
        var c = testConfiguration()
        c.resources = ["https://api.example/a"]
        c.extraParameters = [RequestParameter.usable(name: "audience", value: "aud-1")!]
        let t = ScriptedTransport(clock: clock) { _, _ in DeviceFlowTests.token }
        let client = try TokenClient.testing(configuration: c, metadata: testMetadata(), transport: t, random: CountingRandom())
        _ = try await client.refresh(refreshToken: "rt")
        _ = try await client.exchangeCode("code", redirectURI: "http://127.0.0.1:1/cb", verifier: "v")
        for sent in t.sent {
            let form = FormURLEncoding.decode(String(decoding: sent.request.body, as: UTF8.self))
            #expect(form.filter { $0.0 == "resource" }.map(\.1) == ["https://api.example/a"], "\(form)")
            #expect(!form.contains { $0.0 == "audience" })
        }
    }

    @Test func anInvalidTargetIsTheTokenEndpointsRefusal() async throws {
        var c = testConfiguration()
        c.resources = ["https://unknown.example/"]
        let t = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(400, #"{"error":"invalid_target","error_description":"Invalid Resource"}"#)
        }
        let client = try TokenClient.testing(configuration: c, metadata: testMetadata(), transport: t, random: CountingRandom())
        do {
            _ = try await client.clientCredentials()
            Issue.record("accepted")
        } catch {
            guard case .oauth(let e, .token) = error else { Issue.record("\(error)"); return }
            #expect(e.code == "invalid_target" && error.category == .protocolViolation)
        }
    }

    @Test func theProfileRefusesWhatTheFlagsRefuse() throws {
        func read(_ text: String) throws -> ClientConfiguration {
            try ClientConfiguration(json: try JSONParser().parseObject(Array(text.utf8)))
        }
        let ok = try read(
            #"{"issuer":"https://i","client_id":"c","resources":["https://a/"],"parameters":[{"name":"prompt","value":"login"}],"par":"never"}"#
        )
        #expect(
            ok.resources == ["https://a/"] && ok.extraParameters == [RequestParameter.usable(name: "prompt", value: "login")!]
                && ok.par == .never)
        // An older profile has none of them.
        let old = try read(#"{"issuer":"https://i","client_id":"c"}"#)
        #expect(old.resources.isEmpty && old.extraParameters.isEmpty && old.par == .auto)
        for bad in [
            #"{"issuer":"https://i","client_id":"c","resources":["https://a/#f"]}"#,
            #"{"issuer":"https://i","client_id":"c","parameters":[{"name":"state","value":"x"}]}"#,
            #"{"issuer":"https://i","client_id":"c","parameters":{"prompt":"x"}}"#,
            #"{"issuer":"https://i","client_id":"c","par":"sometimes"}"#
        ] {
            #expect(throws: DocumentError.self, "\(bad)") { try read(bad) }
        }
    }
}
