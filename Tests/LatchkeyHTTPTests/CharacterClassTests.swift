import Testing

@testable import LatchkeyHTTP

/// The classes against their grammar, byte by byte: each is named after an RFC rule, and the checks
/// across the package now rest on these few lines instead of twenty hand-written ranges.
@Suite struct CharacterClassTests {
    @Test func everyByteIsClassedAsItsGrammarSays() {
        for value in 0...255 {
            let b = UInt8(value)
            #expect(CharacterClass.isVisible(b) == (0x21...0x7E).contains(value), "VCHAR \(value)")
            #expect(CharacterClass.isPrintable(b) == (0x20...0x7E).contains(value), "VCHAR / SP \(value)")
            #expect(CharacterClass.isFieldText(b) == (value == 0x09 || (value >= 0x20 && value != 0x7F)), "field text \(value)")
            #expect(CharacterClass.isOptionalWhitespace(b) == [0x20, 0x09].contains(value), "OWS \(value)")
            #expect(CharacterClass.isWhitespace(b) == [0x20, 0x09, 0x0A, 0x0D].contains(value), "whitespace \(value)")
            let nqchar = value == 0x21 || (0x23...0x5B).contains(value) || (0x5D...0x7E).contains(value)
            #expect(CharacterClass.isNonQuoteVisible(b) == nqchar, "NQCHAR \(value)")
        }
    }

    @Test func controlsAreC0DELAndC1() throws {
        for value: UInt32 in [0x00, 0x09, 0x0A, 0x1B, 0x1F, 0x7F] {
            let s = try #require(Unicode.Scalar(value))
            #expect(CharacterClass.isASCIIControl(s) && CharacterClass.isControl(s), "\(value)")
        }
        for value: UInt32 in [0x80, 0x85, 0x9B, 0x9F] {
            let s = try #require(Unicode.Scalar(value))
            #expect(!CharacterClass.isASCIIControl(s) && CharacterClass.isControl(s), "\(value)")
        }
        for value: UInt32 in [0x20, 0x41, 0x7E, 0xA0, 0xE9, 0x202E] {
            let s = try #require(Unicode.Scalar(value))
            #expect(!CharacterClass.isControl(s), "\(value)")
        }
        #expect(CharacterClass.isVisibleASCII("abc-._~") && !CharacterClass.isVisibleASCII("a b") && !CharacterClass.isVisibleASCII("é"))
        #expect(CharacterClass.containsControl("ok\u{9B}") && !CharacterClass.containsASCIIControl("ok\u{9B}"))
        #expect(CharacterClass.isBlank(Array(" \t\r\n".utf8)) && !CharacterClass.isBlank(Array(" x".utf8)))
    }
}
