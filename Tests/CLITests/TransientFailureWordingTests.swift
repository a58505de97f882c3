import Latchkey
import Testing

@testable import latchkey

/// A provider that keeps failing reads the same at every endpoint: exit 7 (the contract's
/// "unexpected status"), `temporarily_unavailable`, one sentence naming the endpoint and the status;
/// a `Retry-After` past what latchkey waits is named with its seconds.
@Suite struct TransientFailureWordingTests {
    @Test(arguments: EndpointRole.allCases)
    func theSameReadingAtEveryEndpoint(_ role: EndpointRole) {
        let report = FailureReport(LatchkeyError.oauth(.unavailable(status: 503, retryAfter: nil), endpoint: role))
        #expect(report.exitCode == 7)
        #expect(report.code == "temporarily_unavailable")
        #expect(report.message.hasPrefix("the provider's ") && report.message.hasSuffix(" kept failing: HTTP 503"), "\(report.message)")
        #expect(report.hint == "the provider is failing or busy: try again later")
    }

    @Test func theServersWaitIsNamed() {
        let report = FailureReport(LatchkeyError.oauth(.unavailable(status: 429, retryAfter: 120), endpoint: .token))
        #expect(report.exitCode == 7)
        #expect(
            report.message == "the provider's token endpoint answered HTTP 429 and asks to wait 120 s (Retry-After), longer than"
                + " latchkey waits (at most 60 s, and never past the command's deadline)")
        #expect(report.hint == "try again in 120 s or later")
    }

    @Test func endpointNames() {
        #expect(FailureReport.unavailable(.discovery, status: 503, wait: nil) == "the provider's discovery document kept failing: HTTP 503")
        #expect(FailureReport.unavailable(.jwks, status: 502, wait: nil) == "the provider's key set (JWKS) kept failing: HTTP 502")
        #expect(
            FailureReport.unavailable(.pushedAuthorization, status: 503, wait: nil)
                == "the provider's pushed authorization endpoint kept failing: HTTP 503")
    }
}
