import Testing

@testable import LatchkeyHTTP

@Suite struct HTTPResponseParserTests {
    private func parse(
        _ text: String, limits: HTTPResponseParser.Limits = .init(), method: String = "GET",
        byteByByte: Bool = false, eof: Bool = true
    ) throws(HTTPError) -> HTTPResponseParser.Message {
        var p = HTTPResponseParser(limits: limits, requestMethod: method)
        let bytes = Array(text.utf8)
        if byteByByte {
            for b in bytes where try p.feed([b]) { break }
        } else {
            try p.feed(bytes)
        }
        if !p.isComplete && eof { try p.finish() }
        guard let m = p.message else { throw .protocolViolation(reason: "incomplete (test)") }
        return m
    }

    private func violation(_ text: String, limits: HTTPResponseParser.Limits = .init(), method: String = "GET") -> String? {
        do { _ = try parse(text, limits: limits, method: method); return nil } catch {
            if case .protocolViolation(let r) = error { return r }; return nil
        }
    }

    @Test func contentLength() throws {
        let m = try parse("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}extra", eof: false)
        #expect(m.status == 200 && m.reason == "OK")
        #expect(String(decoding: m.body, as: UTF8.self) == "{\"a\":1}")
    }

    @Test(arguments: [false, true]) func chunkedWithExtensionsAndTrailers(byteByByte: Bool) throws {
        let m = try parse(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n4;name=v\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-T: 1\r\n\r\n",
            byteByByte: byteByByte, eof: false)
        #expect(String(decoding: m.body, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        #expect(m.trailers.count == 1 && m.trailers[0].name == "X-T")
    }

    @Test func readUntilCloseNeedsEOF() throws {
        var p = HTTPResponseParser()
        #expect(try !p.feed(Array("HTTP/1.0 200 OK\r\n\r\npartial".utf8)))
        try p.finish()
        #expect(p.message.map { String(decoding: $0.body, as: UTF8.self) } == "partial")
    }

    @Test func headersCaseInsensitiveAndDuplicatesJoined() throws {
        let m = try parse("HTTP/1.1 200 OK\r\nX-A: 1\r\nx-a:  2 \r\nContent-Length: 0\r\n\r\n")
        let r = HTTPResponse(status: m.status, headers: m.headers, body: m.body, url: .init(string: "https://x")!)
        #expect(r.header("X-A") == "1, 2")
    }

    @Test func interimResponsesSkippedAndNoBodyStatuses() throws {
        let m = try parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", eof: false)
        #expect(m.status == 204 && m.body.isEmpty)
        let h = try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", method: "HEAD", eof: false)
        #expect(h.body.isEmpty)
    }

    @Test func framingAmbiguitiesRefused() {
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")?.contains("both") == true)
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd")?.contains("conflicting") == true)
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd")?.contains("conflicting") == true)
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n") != nil)
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n") != nil)
        #expect(violation("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") != nil)
        // Agreeing duplicates are fine.
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc") == nil)
    }

    @Test func malformedLinesRefused() {
        for bad in [
            "HTTX/1.1 200 OK\r\n\r\n", "HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 600 X\r\n\r\n",
            "HTTP/1.1 200OK\r\n\r\n", "HTTP/1.1 200 OK\nContent-Length: 0\n\n", "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
            "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "HTTP/1.1 200 OK\r\n: x\r\n\r\n", "HTTP/1.1 200 OK\r\nA: b\u{01}c\r\n\r\n",
            "HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n", "HTTP/1.1 101 Switching\r\n\r\n", ""
        ] {
            #expect(violation(bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test func malformedChunksRefused() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        for bad in ["zz\r\n", "4\r\nabcdXX", "\r\n", "123456789\r\n", "4 x\r\nabcd\r\n0\r\n\r\n", "4\r\nab"] {
            #expect(violation(head + bad) != nil, "\(bad.debugDescription)")
        }
    }

    @Test func truncationIsAViolation() {
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")?.contains("truncated") == true)
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Le")?.contains("truncated") == true)
    }

    @Test func limitsEnforced() {
        let small = HTTPResponseParser.Limits(maxHeaderBytes: 200, maxHeaderCount: 3, maxLineLength: 64, maxBodyBytes: 10)
        #expect(violation("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n", limits: small)?.contains("body larger") == true)
        #expect(
            violation("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\n", limits: small)?.contains("body larger")
                == true)
        #expect(violation("HTTP/1.1 200 OK\r\n\r\n0123456789A", limits: small)?.contains("body larger") == true)
        #expect(violation("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", limits: small)?.contains("header fields") == true)
        #expect(
            violation("HTTP/1.1 200 OK\r\nA: " + String(repeating: "x", count: 100) + "\r\n\r\n", limits: small)?.contains("line longer")
                == true)
        let block = (0..<3).map { "H\($0): " + String(repeating: "v", count: 60) + "\r\n" }.joined()
        #expect(violation("HTTP/1.1 200 OK\r\n" + block + "\r\n", limits: small)?.contains("header block") == true)
    }

    @Test func endlessLineRefusedWithoutBuffering() throws {
        var p = HTTPResponseParser(limits: .init(maxLineLength: 1024))
        var thrown = false
        for _ in 0..<100 {
            do { try p.feed([UInt8](repeating: 0x41, count: 100)) } catch { thrown = true; break }
        }
        #expect(thrown)
    }
}
