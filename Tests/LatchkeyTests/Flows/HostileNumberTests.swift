import FoundationEssentials
import LatchkeyHTTP
import Testing

@testable import Latchkey

/// Numbers that trapped Int64 conversion before (found by FuzzJSON); each must parse without a crash.
@Suite struct HostileNumberTests {
    let url = HTTPURL(string: "https://idp.example/device")!

    func response(_ json: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(json.utf8), url: url)
    }

    @Test func deviceIntervalOutOfInt64RangeFallsBackToDefault() throws {
        let r = try DeviceAuthorizationResponse.parse(
            response(
                #"{"device_code":"d","user_code":"u","verification_uri":"https://idp.example/device","interval":"-1e19","expires_in":"1e19"}"#
            ))
        #expect(r.interval == DeviceAuthorizationResponse.defaultInterval)
        #expect(r.expiresIn == DeviceAuthorizationResponse.defaultExpiresIn)
    }

    @Test func hugeIntervalAndLifetimeAreClamped() throws {
        let r = try DeviceAuthorizationResponse.parse(
            response(
                #"{"device_code":"d","user_code":"u","verification_uri":"https://idp.example/device","interval":9223372036854775807,"expires_in":9000000000000000000}"#
            ))
        #expect(r.interval == DeviceAuthorizationResponse.maxInterval)
        #expect(r.expiresIn == DeviceAuthorizationResponse.maxExpiresIn)
    }

    @Test func tokenExpiresInOutOfRangeIsMalformedNotACrash() {
        guard case .error = TokenResponse.parse(response(#"{"access_token":"a","token_type":"Bearer","expires_in":"1e19"}"#)) else {
            Issue.record("expected a malformed-response error")
            return
        }
    }

    @Test func tokenExpiryIsClampedToTenYears() throws {
        guard
            case .token(let t) = TokenResponse.parse(
                response(#"{"access_token":"a","token_type":"Bearer","expires_in":9000000000000000000}"#))
        else {
            Issue.record("expected a token")
            return
        }
        let now = Timestamp(timeIntervalSince1970: 1_800_000_000)
        let expiry = try #require(t.token(at: now).expiresAt)
        #expect(expiry.timeIntervalSince(now) == 315_360_000)
    }
}
