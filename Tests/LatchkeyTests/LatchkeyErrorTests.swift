import LatchkeyHTTP
import Testing

@testable import Latchkey

@Suite struct LatchkeyErrorTests {
    /// One example of every case (and of every configuration problem), so the text rule below covers them all.
    static let examples: [(LatchkeyError, LatchkeyError.Category)] = [
        (.notSignedIn, .signInRequired), (.reauthenticationRequired(reason: "x"), .signInRequired),
        (.denied(code: "access_denied", description: nil), .denied), (.denied(code: "authorization_declined", description: nil), .denied),
        (.expired(reason: "x"), .expired), (.timedOut(seconds: 3), .expired),
        (.network(.dnsFailure(host: "h")), .network), (.network(.tlsFailure(reason: "r")), .network),
        (.network(.timedOut(after: 1)), .network),
        (.network(.protocolViolation(reason: "r")), .protocolViolation), (.protocolViolation("x"), .protocolViolation),
        (.oauth(.server(code: "invalid_client", description: nil, status: 401), endpoint: .token), .protocolViolation),
        (.issuerMismatch(expected: "a", got: "b"), .protocolViolation),
        (.verification(.nonceMismatch), .verification), (.storage(.passphraseRequired), .storage),
        (.clientKey(.missing(path: "k")), .storage), (.cancelled, .cancelled),
        (.network(.cancelled), .cancelled),
        (.configuration(.missingEndpoint("device_authorization_endpoint")), .configuration),
        (.configuration(.missingClientSecret(method: .clientSecretBasic)), .configuration),
        (.configuration(.unusableIssuer("http://idp.example")), .configuration),
        (.configuration(.unusableRedirectURI("urn:x", reason: "needs loopback")), .configuration),
        (.configuration(.missingPasteReader), .configuration),
        (.configuration(.endOfPastedInput), .configuration),
        // A named CA bundle that cannot be read is a setting to fix, not the network failing.
        (.network(.unreadableCABundle(path: "/ca.pem", errno: 2)), .configuration)
    ]

    @Test func categoriesGroupWhatTheCallerDoes() {
        for (error, category) in Self.examples { #expect(error.category == category, "\(error)") }
        // Every category is reachable.
        #expect(Set(Self.examples.map { "\($0.1)" }).count == LatchkeyError.Category.allCases.count)
    }

    @Test func messagesAreOneLineAndCarryTheData() {
        let e = LatchkeyError.issuerMismatch(expected: "https://a", got: "https://b")
        #expect(e.message == "issuer mismatch: expected https://a got https://b")
        #expect(!e.message.contains("\n"))
        let missing = LatchkeyError.configuration(.missingEndpoint("device_authorization_endpoint"))
        #expect(missing.message == "the provider's metadata has no device_authorization_endpoint")
    }

    /// Presentation belongs to the program: no option names, `LATCHKEY_` variables or exit codes in
    /// library text (the source-wide check is `LibraryTextTests`).
    @Test func messagesNameNoOptionVariableOrExitCode() {
        for (error, _) in Self.examples {
            #expect(LibraryText.presentationLeaks(in: error.message).isEmpty, "\(error.message)")
        }
        for failure in [
            RevocationFailure.noEndpoint(.refreshToken), .insecureEndpoint(.accessToken, endpoint: "http://x"),
            .refused(.accessToken, .unexpectedStatus(500)), .failed(.refreshToken, .cancelled),
            .unreadableSession(.notSignedIn)
        ] {
            #expect(LibraryText.presentationLeaks(in: failure.description).isEmpty, "\(failure)")
        }
    }
}
