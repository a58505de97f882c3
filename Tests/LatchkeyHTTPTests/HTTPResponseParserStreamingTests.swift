import Testing

@testable import LatchkeyHTTP

/// The parser's streaming side (`hasHead`, `head`, `takeBody`): what `HTTPClient` uses to hand a
/// body on as it arrives while framing and limits still cover the whole body.
@Suite struct HTTPResponseParserStreamingTests {
    @Test(arguments: [1, 3, 64]) func takenPiecesMakeTheWholeChunkedBody(step: Int) throws {
        let text = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;x=y\r\n \r\n5\r\nworld\r\n0\r\nX-T: 1\r\n\r\n"
        var p = HTTPResponseParser()
        let bytes = Array(text.utf8)
        var taken: [UInt8] = []
        var sawHeadBeforeBody = false
        var i = 0
        while i < bytes.count && !p.isComplete {
            try p.feed(bytes[i..<min(i + step, bytes.count)])
            i += step
            if p.hasHead && taken.isEmpty { sawHeadBeforeBody = p.head?.status == 200 }
            taken += p.takeBody()
        }
        #expect(p.isComplete)
        #expect(sawHeadBeforeBody)
        #expect(String(decoding: taken, as: UTF8.self) == "hello world")
        #expect(p.message?.body == [], "a taken body is not also kept")
        #expect(p.message?.trailers.first?.name == "X-T")
    }

    @Test func theLimitCountsTakenBytesToo() throws {
        // 3 chunks of 4 bytes against a 10-byte limit: taking the first two does not reset the count.
        var p = HTTPResponseParser(limits: .init(maxBodyBytes: 10))
        try p.feed(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n".utf8))
        #expect(p.takeBody() == Array("abcdefgh".utf8))
        #expect(throws: HTTPError.protocolViolation(reason: "body larger than 10 bytes")) {
            try p.feed(Array("4\r\nijkl\r\n0\r\n\r\n".utf8))
        }
        // Close-delimited bodies too.
        var q = HTTPResponseParser(limits: .init(maxBodyBytes: 10))
        try q.feed(Array("HTTP/1.1 200 OK\r\n\r\n123456".utf8))
        _ = q.takeBody()
        #expect(throws: HTTPError.protocolViolation(reason: "body larger than 10 bytes")) { try q.feed(Array("78901".utf8)) }
    }

    @Test func interimResponsesAreNotTheHead() throws {
        var p = HTTPResponseParser()
        try p.feed(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        #expect(!p.hasHead && p.head == nil)
        try p.feed(Array("HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\nX-A: b\r\n\r\n".utf8))
        #expect(p.hasHead && p.head?.status == 404)
        #expect(p.head?.headers.map(\.name) == ["Content-Length", "X-A"])
        #expect(!p.isComplete)
        try p.feed(Array("abc".utf8))
        #expect(p.takeBody() == Array("abc".utf8) && p.isComplete)
    }
}
