import LatchkeyTestSupport
import Testing

/// Issue 37 §3: `-v` copies a server's headers and bodies into the log; like every human line, the
/// log reaches the terminal sanitised, so ESC/OSC, C1 controls (U+009B acts as CSI on the Linux
/// console) and bidi overrides cannot retitle the terminal, clear it or reorder what it shows.
@Suite("latchkey -v: server bytes never reach the terminal raw")
struct VerboseSanitisingProcessTests {
    @Test func hostileHeadersAreEscapedInTheLog() throws {
        try withScriptedIdP("hostile-headers") { idp, cli in
            let result = try cli.run(["-v", "login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            // The raw control bytes make the error answer malformed JSON (exit 7); before that, `-v` logged it.
            #expect(result.exitCode == 7 || result.exitCode == 4, "\(result) \(result.stderrText.suffix(400))")
            let bytes = result.stderr
            #expect(!bytes.contains(0x1B), "ESC reached stderr")
            #expect(!bytes.contains(0x07), "BEL reached stderr")
            let text = result.stderrText
            #expect(!text.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E }, "C1 or U+202E reached stderr")
            // The header was logged, visibly escaped.
            #expect(text.contains("a\\u009B31mb\\u202Ec"), "\(text.suffix(800))")
            #expect(text.contains("Denied\\x1B]0;owned\\x07 by policy"), "\(text.suffix(800))")
        }
    }
}
