import Testing

@testable import LatchkeyHTTP

/// RFC 9110 §9.1: a method is a case-sensitive token. The request line carries the method exactly
/// as given, the same text a DPoP proof puts in `htm`, and anything that is not a token is refused.
@Suite struct RequestMethodTests {
    static func requestLine(_ method: String) throws(HTTPError) -> String {
        let url = try! HTTPURL.parse("https://api.example.com/items?q=1")
        let head = try HTTPRequestHead.serialize(
            HTTPRequest(method: method, url: url), target: try! RequestTarget(url: url),
            userAgent: "test")
        return String(decoding: head, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
    }

    @Test(arguments: ["GET", "get", "Post", "PATCH", "M-SEARCH", "PROPFIND", "x.custom_1!"])
    func theMethodIsSentAsGiven(method: String) throws {
        #expect(try Self.requestLine(method) == "\(method) /items?q=1 HTTP/1.1")
    }

    @Test(arguments: ["", "GE T", "GET\r\nX: y", "GET/", "(GET)", "GÉT", "GET\t", "a:b"])
    func aMethodThatIsNotATokenIsRefused(method: String) {
        #expect(throws: HTTPError.self) { _ = try Self.requestLine(method) }
        #expect(!HTTPRequest.isValidMethod(method))
    }

    @Test func tokenCharacters() {
        #expect(HTTPRequest.isValidMethod("!#$%&'*+-.^_`|~09azAZ"))
        for c in Array(" \"(),/:;<=>?@[\\]{}".utf8) {
            #expect(!HTTPRequest.isValidMethod("A" + String(UnicodeScalar(c))), "\(UnicodeScalar(c))")
        }
    }

    /// A `head` request is not HEAD: its answer's body is read like any other's.
    @Test func onlyHEADInItsOwnCaseHasNoBody() throws {
        var head = HTTPResponseParser(requestMethod: "HEAD")
        #expect(try head.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n".utf8)))
        var other = HTTPResponseParser(requestMethod: "head")
        #expect(try !other.feed(Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n".utf8)))
        #expect(try other.feed(Array("hello".utf8)))
        #expect(other.message?.body == Array("hello".utf8))
    }
}
