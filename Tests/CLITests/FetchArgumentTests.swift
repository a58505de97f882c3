import LatchkeyHTTP
import LatchkeyTestSupport
import Testing

@testable import latchkey

/// `fetch`'s command line turned into a request, without a process or a server.
@Suite("fetch arguments")
struct FetchArgumentTests {
    static func plan(_ arguments: [String]) throws -> FetchCommand.Plan {
        try FetchCommand.parse(try ArgumentParser().parse(["fetch"] + arguments))
    }

    @Test func headersRepeatInOrderAndTheLastValueOfOtherOptionsWins() throws {
        let parsed = try ArgumentParser().parse([
            "fetch", "-H", "A: 1", "--header", "B:2", "-H", "A: 3", "-X", "PUT", "-X", "PATCH", "https://x.test/"
        ])
        #expect(parsed.all(.header) == ["A: 1", "B:2", "A: 3"])
        #expect(parsed.string(.request) == "PATCH")
        let plan = try FetchCommand.parse(parsed)
        #expect(plan.request.headers.map(\.name) == ["A", "B", "A"])
        #expect(plan.request.headers.map(\.value) == ["1", "2", "3"])
        #expect(plan.request.method == "PATCH")
        #expect(plan.request.maxRedirects == 3)
    }

    @Test func methodDefaultsToGetOrPostWithData() throws {
        let get = try Self.plan(["https://x.test/a"])
        #expect(get.request.method == "GET" && get.request.body.isEmpty && get.request.headers.isEmpty)
        let post = try Self.plan(["--data", "k=v", "https://x.test/a"])
        #expect(post.request.method == "POST")
        #expect(post.request.body == Array("k=v".utf8))
        #expect(post.request.headers.first { $0.name == "Content-Type" }?.value == "application/x-www-form-urlencoded")
        let typed = try Self.plan(["--data", "{}", "-H", "content-type: application/json", "https://x.test/a"])
        #expect(typed.request.headers.count == 1)
    }

    @Test(arguments: ["Authorization: Bearer x", "authorization:x", "DPoP: proof", "dPoP:  y"])
    func credentialHeadersAreRefused(header: String) throws {
        #expect(throws: UsageError.self) { try Self.plan(["-H", header, "https://x.test/"]) }
    }

    @Test(arguments: [
        "Host: evil.test", "content-length: 99", "Transfer-Encoding: chunked", "Accept-Encoding: gzip", "Connection: keep-alive"
    ])
    func transportHeadersAreRefusedNotIgnored(header: String) throws {
        #expect(throws: UsageError.self) { try Self.plan(["-H", header, "https://x.test/"]) }
    }

    @Test(arguments: ["no colon here", ": empty name", "Two Words: x", "X: a\u{1B}[2Jb", "X: a\rb"])
    func malformedHeadersAreRefused(header: String) throws {
        #expect(throws: UsageError.self) { try Self.plan(["-H", header, "https://x.test/"]) }
    }

    @Test(arguments: [
        [], ["ftp://x.test/"], ["http://example.com/"], ["-X", "GE T", "https://x.test/"],
        ["https://x.test/", "https://y.test/"]
    ])
    func badRequestsAreUsageErrors(arguments: [String]) throws {
        #expect(throws: UsageError.self) { try Self.plan(arguments) }
    }

    @Test func includeAndOutputAreCarried() throws {
        let plan = try Self.plan(["--include", "--output", "/tmp/x", "https://x.test/"])
        #expect(plan.include && plan.output == "/tmp/x")
        #expect(!(try Self.plan(["https://x.test/"])).include)
    }

    @Test func includeHeadIsTerminalSafe() throws {
        let response = HTTPResponse(
            status: 418, headers: [("X-Evil", "a\u{1B}]0;pwned\u{07}b")],
            url: try #require(HTTPURL(string: "https://x.test/")))
        let head = FetchCommand.head(response)
        #expect(head.hasPrefix("HTTP/1.1 418\r\n"))
        #expect(!head.unicodeScalars.contains("\u{1B}"))
        #expect(head.hasSuffix("\r\n\r\n"))
    }
}
