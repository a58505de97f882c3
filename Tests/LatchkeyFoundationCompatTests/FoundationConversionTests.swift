import FoundationEssentials
import Latchkey
import LatchkeyFoundationCompat
import LatchkeyHTTP
import Testing

/// The Foundation conveniences convert without loss, and refuse what the core refuses.
@Suite struct FoundationConversionTests {
    @Test func datesRoundTrip() {
        for seconds in [0, 1_796_120_420.25, -86_400.5, 4_102_444_800] as [Double] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(Timestamp(date).timeIntervalSince1970 == seconds)
            #expect(Timestamp(date).date == date)
            #expect(Date(Timestamp(timeIntervalSince1970: seconds)) == date)
        }
        #expect(RFC3339.format(Timestamp(Date(timeIntervalSince1970: 1_767_268_800))) == "2026-01-01T12:00:00Z")
    }

    @Test func urlsRoundTripAndTheCoreRulesHold() throws {
        for text in ["https://idp.example/token?x=1", "http://127.0.0.1:8080/callback", "https://[::1]:8443/a%20b"] {
            let url = try #require(URL(string: text))
            let core = try #require(HTTPURL(url))
            #expect(core.absoluteString == text)
            #expect(core.url == url)
            #expect(URL(core) == url)
        }
        for text in ["http://idp.example/", "ftp://idp.example/", "https://user:pw@idp.example/"] {
            #expect(HTTPURL(try #require(URL(string: text))) == nil, "\(text)")
        }
        #expect(throws: HTTPError.self) { try ClientConfiguration(issuer: URL(string: "http://idp.example")!, clientID: "c") }
        #expect(try ClientConfiguration(issuer: URL(string: "https://idp.example")!, clientID: "c").issuer == "https://idp.example")
    }

    @Test func bytesAndTokens() throws {
        let request = try HTTPRequest(method: "POST", url: URL(string: "https://idp.example/token")!, body: Data("a=1".utf8))
        #expect(request.body == Array("a=1".utf8))
        #expect(request.bodyData == Data("a=1".utf8))
        let response = HTTPResponse(
            status: 200, headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")], body: [1, 2],
            url: try HTTPURL.parse("https://idp.example/"))
        #expect(response.bodyData == Data([1, 2]))
        #expect(response.serverFoundationDate == Date(timeIntervalSince1970: 784_111_777))
        let token = Token(accessToken: "at", expiresAt: Timestamp(timeIntervalSince1970: 1000))
        #expect(token.expirationDate == Date(timeIntervalSince1970: 1000))
        #expect(token.isValid(at: Date(timeIntervalSince1970: 900), minTTL: 60))
        #expect(!token.isValid(at: Date(timeIntervalSince1970: 950), minTTL: 60))
        let clock = FoundationTimeSource { Date(timeIntervalSince1970: 42) }
        #expect(clock.now() == Timestamp(timeIntervalSince1970: 42))
    }
}
