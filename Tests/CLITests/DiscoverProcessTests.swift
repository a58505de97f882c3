import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `discover` prints what the provider sent, as validated: every member of its metadata object,
/// in its order, not only the members latchkey acts on (django-allauth's `end_session_endpoint`,
/// `response_types_supported` and `subject_types_supported` were dropped).
@Suite("latchkey discover (process)")
struct DiscoverProcessTests {
    @Test func discoverPrintsEveryMemberTheProviderSent() throws {
        let curl = try Requirement.requireOrSkip(
            access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil,
            "curl is not installed")
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        try withCLI { cli, _ in
            let raw = try ProcessRunner.run(curl, ["-s", idp.issuer + "/.well-known/openid-configuration"])
            let sent = try JSONParser().parseObject(raw.stdout)
            #expect(sent["response_types_supported"] != nil && sent["subject_types_supported"] != nil, "\(raw)")
            let result = try cli.run(["discover", "--issuer", idp.issuer])
            #expect(result.exitCode == 0, "\(result)")
            let printed = try JSONParser().parseObject(result.stdout)
            #expect(printed.keys == sent.keys, "printed \(printed.keys), the provider sent \(sent.keys)")
            #expect(printed["response_types_supported"] == sent["response_types_supported"])
            #expect(printed["subject_types_supported"] == sent["subject_types_supported"])
            #expect(printed == sent, "the provider's valid document is printed unchanged")
        }
    }
}
