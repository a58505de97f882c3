import Testing
import LatchkeyHTTP
@testable import Latchkey

@Suite struct LatchkeyErrorTests {
    struct StoreBroke: Error {}

    @Test func exitCodesFollowTheCLIContract() {
        let cases: [(LatchkeyError, Int32)] = [
            (.notSignedIn, 3), (.reauthenticationRequired(reason: "x"), 3),
            (.denied(code: "access_denied", description: nil), 4), (.denied(code: "authorization_declined", description: nil), 4),
            (.expired(reason: "x"), 5), (.timedOut(seconds: 3), 5),
            (.network(.dnsFailure(host: "h")), 6), (.network(.tlsFailure(reason: "r")), 6), (.network(.timedOut(after: 1)), 6),
            (.network(.protocolViolation(reason: "r")), 7), (.protocolViolation("x"), 7),
            (.oauth(.server(code: "invalid_client", description: nil, status: 401)), 7),
            (.issuerMismatch(expected: "a", got: "b"), 7),
            (.verification(.nonceMismatch), 8), (.storage(StoreBroke()), 9), (.cancelled, 130), (.network(.cancelled), 130),
            (.configuration("x"), 2),
        ]
        for (error, code) in cases { #expect(error.exitCode == code, "\(error)") }
    }

    @Test func messagesAreOneLineWithHints() {
        let e = LatchkeyError.issuerMismatch(expected: "https://a", got: "https://b")
        #expect(e.message == "issuer mismatch: expected https://a got https://b")
        #expect(!e.message.contains("\n"))
        #expect(LatchkeyError.reauthenticationRequired(reason: "r").hint == "run `latchkey login`")
    }
}
