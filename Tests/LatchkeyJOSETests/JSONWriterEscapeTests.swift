import LatchkeyJOSE
import Testing

/// Whatever prints a field of the CLI's JSON (`jq -r .user_code`) puts the decoded text on a
/// terminal, so the writer escapes every character a terminal or a text layout acts on, not only
/// the ones JSON requires: DEL and C1 (U+009B is a CSI), the line and paragraph separators, and
/// the bidirectional embedding, override and isolate controls.
@Suite struct JSONWriterEscapeTests {
    static let mustEscape: [UInt32] =
        Array(0x00...0x1F) + Array(0x7F...0x9F) + [0x2028, 0x2029]
        + Array(0x202A...0x202E) + Array(0x2066...0x2069)

    @Test func terminalAndLayoutControlsAreEscaped() throws {
        for v in Self.mustEscape {
            let s = String(Character(try #require(Unicode.Scalar(v))))
            let text = JSONValue.string("a" + s + "b").jsonText
            #expect(
                text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F },
                "U+\(String(v, radix: 16, uppercase: true)) written raw: \(text.debugDescription)")
            // Still JSON, and still the same value.
            #expect(try JSONParser().parse(Array(text.utf8)) == .string("a" + s + "b"))
        }
    }

    @Test func exactSpelling() {
        #expect(JSONValue.string("\u{9B}31m\u{202E}x\u{2028}\u{7F}\u{2069}").jsonText == #""\u009b31m\u202ex\u2028\u007f\u2069""#)
        #expect(JSONValue.string("\u{1B}\n\t\"\\").jsonText == #""\u001b\n\t\"\\""#)
        // Member names go through the same writer.
        #expect(JSONValue.object(JSONObject([("k\u{85}", .null)])).jsonText == #"{"k\u0085":null}"#)
    }

    @Test func printableTextStaysAsItIs() {
        let text = "é ü ß 日本 😀 \u{A0}\u{200F}\u{2027}\u{202F}\u{2065}\u{206A}~"
        #expect(JSONValue.string(text).jsonText == "\"" + text + "\"")
    }
}
