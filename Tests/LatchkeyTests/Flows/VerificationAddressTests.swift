import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Issue 12: the addresses a person is sent to, and the one loopback rule.
@Suite struct VerificationAddressTests {
    func parse(uri: String, complete: String? = nil) throws(LatchkeyError) -> DeviceAuthorizationResponse {
        var body = #"{"device_code":"d","user_code":"U","verification_uri":"\#(uri)""#
        if let complete { body += #","verification_uri_complete":"\#(complete)""# }
        return try DeviceAuthorizationResponse.parse(Reply.json(200, body + "}"))
    }

    @Test(arguments: ["https://idp.example/device", "http://127.0.0.1:8080/device", "http://localhost/d", "http://[::1]:9/d"])
    func webAddressesAreAccepted(uri: String) throws {
        #expect(try parse(uri: uri, complete: uri + "?user_code=U").verificationURI == uri)
    }

    @Test(arguments: [
        "http://phish.example/device", "javascript:alert(1)", "data:text/html,hi", "file:///etc/passwd",
        "http://127.0.0.1.nip.io/device", "http://127.attacker.example/", "https://idp.example/\\u001b[8m",
        "https://idp.example/\\u009b", "https://idp.example/a b", "ftp://idp.example/"
    ])
    func otherAddressesAreProtocolViolations(uri: String) {
        for (v, c) in [(uri, nil), ("https://idp.example/device", uri)] as [(String, String?)] {
            do {
                _ = try parse(uri: v, complete: c)
                Issue.record("accepted \(v) / \(c ?? "-")")
            } catch {
                #expect(error.category == .protocolViolation, "\(error)")
            }
        }
    }

    @Test func loopbackIsAnAddressNotAPrefix() {
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"] { #expect(LoopbackAddress.isLoopbackHost(host), "\(host)") }
        for host in ["127.0.0.1.nip.io", "127.attacker.example", "127.", "localhost.example", "0.0.0.0", "::", "10.0.0.1"] {
            #expect(!LoopbackAddress.isLoopbackHost(host), "\(host)")
        }
    }

    @Test func aRedirectURIThatOnlyLooksLikeLoopbackIsAConfigurationError() {
        for uri in ["http://127.0.0.1.nip.io:8080/callback", "http://127.attacker.example/callback", "https://127.0.0.1/cb"] {
            do {
                _ = try LoopbackRedirectReceiver(redirectURI: uri)
                Issue.record("accepted \(uri)")
            } catch {
                #expect(error.category == .configuration, "\(uri): \(error)")
            }
        }
    }
}
