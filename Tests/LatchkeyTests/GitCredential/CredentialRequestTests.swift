import Latchkey
import LatchkeyCrypto
import LatchkeyTesting
import Testing

@Suite("git credential request reader")
struct CredentialRequestTests {
    func parse(_ text: String) throws(CredentialRequestError) -> CredentialRequest { try CredentialRequest.parse(Array(text.utf8)) }

    @Test func readsGitsAttributesUpToTheBlankLine() throws {
        let r = try parse("protocol=https\nhost=git.example.com\npath=org/repo.git\nwwwauth[]=Bearer realm=\"x\"\n\nprotocol=http\n")
        #expect(r.scheme == "https" && r.host == "git.example.com" && r.value("path") == "org/repo.git")
        #expect(r.value("wwwauth[]") == "Bearer realm=\"x\"")
        #expect(r.isHTTPS(forHost: "GIT.example.com"))
        #expect(!r.isHTTPS(forHost: "git.example.com:8443"))
        #expect(!r.isHTTPS(forHost: "example.com"))
    }

    @Test func endOfInputAndCRLFEndLines() throws {
        let r = try parse("protocol=https\r\nhost=h:8443\r\n")
        #expect(r.host == "h:8443" && r.isHTTPS(forHost: "h:8443"))
        #expect(try parse("protocol=https\nhost=h").host == "h")
        #expect(try parse("").attributes.isEmpty)
    }

    @Test func otherProtocolsDoNotMatch() throws {
        #expect(!(try parse("protocol=http\nhost=h\n")).isHTTPS(forHost: "h"))
        #expect(!(try parse("host=h\n")).isHTTPS(forHost: "h"))
        #expect(!(try parse("protocol=HTTPS\nhost=h\n")).isHTTPS(forHost: "h"), "git sends the protocol in lower case")
    }

    @Test func laterValuesWinAndURLIsSplit() throws {
        let r = try parse("protocol=http\nhost=a\nurl=https://alice@git.example.com:8443/org/repo.git\n")
        #expect(r.scheme == "https" && r.host == "git.example.com:8443" && r.value("username") == "alice")
        #expect(r.value("path") == "org/repo.git")
        #expect(throws: CredentialRequestError.badURL(line: 1)) { try parse("url=git.example.com\n") }
        #expect(throws: CredentialRequestError.badURL(line: 1)) { try parse("url=https://\n") }
    }

    @Test func refusesWhatGitNeverSends() {
        #expect(throws: CredentialRequestError.missingSeparator(line: 2)) { try parse("protocol=https\nhost\n") }
        #expect(throws: CredentialRequestError.badName(line: 1)) { try parse("=https\n") }
        #expect(throws: CredentialRequestError.badName(line: 1)) { try parse("Proto col=https\n") }
        #expect(throws: CredentialRequestError.nulByte(line: 2)) { try parse("protocol=https\nhost=h\0.evil\n") }
        #expect(throws: CredentialRequestError.badCharacters(line: 1)) { try parse("host=h\u{1B}[2J\n") }
        #expect(throws: CredentialRequestError.badCharacters(line: 1)) { try CredentialRequest.parse(Array("host=".utf8) + [0xFF, 0x0A]) }
        let long = "host=" + String(repeating: "a", count: CredentialRequest.maxLineBytes)
        #expect(throws: CredentialRequestError.lineTooLong(line: 1, limit: CredentialRequest.maxLineBytes)) { try parse(long + "\n") }
        let many = String(repeating: "a=b\n", count: CredentialRequest.maxLines + 1)
        #expect(throws: CredentialRequestError.tooLarge(limit: CredentialRequest.maxLines)) { try parse(many) }
        #expect(throws: CredentialRequestError.tooLarge(limit: CredentialRequest.maxBytes)) {
            try CredentialRequest.parse([UInt8](repeating: 0x61, count: CredentialRequest.maxBytes + 1))
        }
    }
}

@Suite("RP-Initiated Logout request")
struct EndSessionRequestTests {
    struct FixedRandom: RandomSource { func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: 7, count: count) } }

    @Test func parametersAndNoHintByDefault() throws {
        let r = try EndSessionRequest(
            endpoint: "https://idp.example/logout?x=1", clientID: "cli",
            postLogoutRedirectURI: "https://app.example/bye", idTokenHint: nil, random: FixedRandom())
        #expect(
            r.url.absoluteString
                == "https://idp.example/logout?x=1&client_id=cli&post_logout_redirect_uri=https%3A%2F%2Fapp.example%2Fbye&state=" + r.state)
        #expect(r.state.utf8.count == 22)
        let hinted = try EndSessionRequest(
            endpoint: "https://idp.example/logout", clientID: "cli", postLogoutRedirectURI: nil,
            idTokenHint: "a.b.c", random: FixedRandom())
        #expect(hinted.url.absoluteString == "https://idp.example/logout?id_token_hint=a.b.c&client_id=cli&state=" + hinted.state)
    }

    @Test func refusesANonHTTPSEndpoint() {
        #expect(throws: LatchkeyError.self) {
            try EndSessionRequest(
                endpoint: "http://idp.example/logout", clientID: "c", postLogoutRedirectURI: nil, idTokenHint: nil,
                random: FixedRandom())
        }
    }
}
