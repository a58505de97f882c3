import Latchkey
import LatchkeyJOSE
import Testing

@testable import latchkey

/// The output-boundary sanitiser (issue 12, item 1): server text reaches the terminal with its
/// control characters made visible, never acted on.
@Suite struct TerminalTextTests {
    @Test func controlCharactersBecomeVisibleEscapes() {
        #expect(TerminalText.sanitize("a\u{1B}[8mb") == "a\\x1B[8mb")
        #expect(TerminalText.sanitize("\u{1B}]0;pwned\u{07}") == "\\x1B]0;pwned\\x07")
        #expect(TerminalText.sanitize("x\u{08}\u{7F}y") == "x\\x08\\x7Fy")
        #expect(TerminalText.sanitize("csi\u{9B}31m") == "csi\\u009B31m")
        #expect(TerminalText.sanitize("\u{85}\u{80}\u{9F}") == "\\u0085\\u0080\\u009F")
        #expect(TerminalText.sanitize("evil\u{202E}gpj.exe") == "evil\\u202Egpj.exe")
        #expect(TerminalText.sanitize("nul\u{0}") == "nul\\x00")
    }

    @Test func ordinaryTextNewlineAndTabAreKept() {
        #expect(TerminalText.sanitize("WDJB-MJHT") == "WDJB-MJHT")
        #expect(TerminalText.sanitize("line one\nline\ttwo") == "line one\nline\ttwo")
        #expect(TerminalText.sanitize("Grüße ✓ 日本") == "Grüße ✓ 日本")
        #expect(TerminalText.singleLine("a\r\nb\u{1B}c") == "a  b\\x1Bc")
    }

    @Test func everyScalarOutsideTheSafeSetIsEscaped() {
        for value in UInt32(0)...0x20AF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let out = TerminalText.singleLine(String(Character(scalar)))
            let unsafe = out.unicodeScalars.contains { s in
                (s.value < 0x20 && s.value != 0x09) || (0x7F...0x9F).contains(s.value) || (0x202A...0x202E).contains(s.value)
            }
            #expect(!unsafe, "U+\(String(value, radix: 16)) passed through")
        }
    }

    /// Error lines carry server text (error_description, iss, claims); the report sanitises it.
    @Test func failureLinesAreSanitised() {
        let report = FailureReport(
            LatchkeyError.denied(
                code: "access_denied",
                description: "no\u{1B}]0;owned\u{07}\u{1B}[1A"))
        let line = "latchkey: " + TerminalText.singleLine(report.message)
        #expect(!line.unicodeScalars.contains("\u{1B}") && !line.unicodeScalars.contains("\u{07}"))
        #expect(line.contains("\\x1B]0;owned\\x07"))
        let mismatch = FailureReport(LatchkeyError.issuerMismatch(expected: "https://a", got: "https://b\u{9B}2J"))
        #expect(TerminalText.singleLine(mismatch.message).contains("\\u009B2J"))
    }
}
