import FoundationEssentials
import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite struct TokenResponseTests {
    @Test func parsesJSONToken() throws {
        let r = TokenResponse.parse(
            Reply.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","scope":"openid"}"#))
        guard case .token(let t) = r else { Issue.record("not a token: \(r)"); return }
        #expect(t.accessToken == "at")
        #expect(t.refreshToken == "rt")
        #expect(t.expiresIn == 3600)
        #expect(t.scope == "openid")
    }

    @Test func glewlwydLowercaseBearerIsNormalised() {
        guard case .token(let t) = TokenResponse.parse(Reply.json(200, #"{"access_token":"at","token_type":"bearer","iat":1}"#)) else {
            Issue.record("not a token"); return
        }
        #expect(t.tokenType == "Bearer")
    }

    @Test func expiresInAsString() {
        guard case .token(let t) = TokenResponse.parse(Reply.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":"120"}"#))
        else {
            Issue.record("not a token"); return
        }
        #expect(t.expiresIn == 120)
    }

    @Test func githubPendingWith200IsNotAToken() {
        let r = TokenResponse.parse(Reply.json(200, #"{"error":"authorization_pending","error_description":"wait"}"#))
        #expect(r == .error(.server(code: "authorization_pending", description: "wait", status: 200)))
    }

    @Test func githubFormEncodedToken() {
        guard case .token(let t) = TokenResponse.parse(Reply.form(200, "access_token=gho_abc&token_type=bearer&scope=repo")) else {
            Issue.record("not a token"); return
        }
        #expect(t.accessToken == "gho_abc")
        #expect(t.tokenType == "Bearer")
    }

    @Test func twoHundredWithoutAccessTokenIsMalformed() {
        guard case .error(.malformedResponse) = TokenResponse.parse(Reply.json(200, #"{"token_type":"Bearer"}"#)) else {
            Issue.record("accepted a token without access_token"); return
        }
    }

    @Test func glewlwydEmpty400IsInvalidGrant() {
        #expect(TokenResponse.parse(Reply.empty(400)).errorCode == "invalid_grant")
    }

    @Test func errorsComeFromTheBody() {
        #expect(TokenResponse.parse(Reply.json(401, #"{"error":"invalid_client"}"#)).errorCode == "invalid_client")
        #expect(TokenResponse.parse(Reply.empty(502)) == .error(.unexpectedStatus(502)))
    }

    @Test func refreshWithoutRefreshTokenKeepsOld() {
        let previous = Token(accessToken: "old", refreshToken: "rt-old", scope: "openid", idToken: "id-old")
        let t = TokenResponse(accessToken: "new", expiresIn: 60).token(at: Timestamp(timeIntervalSince1970: 0), previous: previous)
        #expect(t.refreshToken == "rt-old")
        #expect(t.idToken == "id-old")
        #expect(t.expiresAt == Timestamp(timeIntervalSince1970: 60))
    }
}

extension TokenResponse.Outcome {
    var errorCode: String? { if case .error(let e) = self { return e.code }; return nil }
}
