import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `login --flow jwt-bearer --assertion-file` and `--client-assertion-file`: the usage errors and
/// the file rule, found before anything is sent (the issuer is a closed port, so any network use
/// would be exit 6, not 2, 3 or 9).
@Suite("latchkey binary: assertion file options")
struct AssertionFileOptionTests {
    static let issuer = "http://127.0.0.1:9"

    static func jwt(exp: Int) -> String {
        Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"iss":"w","exp":\#(exp)}"#.utf8)) + ".c2ln"
    }

    @Test func theOptionsGoWithTheirFlowAndMethod() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state")
        let base = ["login", "--issuer", Self.issuer, "--client-id", "w"]
        for (extra, message) in [
            (["--flow", "jwt-bearer"], "--flow jwt-bearer needs --assertion-file FILE"),
            (["--assertion-file", "/x.jwt"], "--assertion-file is for --flow jwt-bearer"),
            (
                ["--flow", "client-credentials", "--client-assertion-file", "/x.jwt"],
                "--client-assertion-file is for --auth-method private_key_jwt"
            ),
            (
                [
                    "--flow", "client-credentials", "--auth-method", "private_key_jwt", "--client-assertion-file", "/x.jwt",
                    "--client-key-file", "/k.pem"
                ],
                "--client-assertion-file and --client-key-file do not go together"
            ),
            (["--flow", "jwt-bearer", "--assertion-file", ""], "--assertion-file needs a path")
        ] {
            let r = try cli.run(base + extra)
            #expect(r.exitCode == 2, "\(extra): \(r)")
            #expect(r.stderrText.contains(message), "\(extra): \(r.stderrText)")
        }
        #expect(access(dir.path + "/state/profiles/default.json", F_OK) != 0, "a failed login saved the profile")
    }

    @Test func theFileRuleIsAppliedBeforeAnythingIsSent() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state")
        let now = Int(time(nil))
        func write(_ name: String, _ text: String, mode: mode_t = 0o600) -> String {
            let path = dir.path + "/" + name
            _ = FileText.write(text, to: path, mode: mode)
            _ = chmod(path, mode)
            return path
        }
        let cases: [(String, Int32, String)] = [
            (write("expired.jwt", Self.jwt(exp: now - 10) + "\n"), 3, "expired"),
            (write("open.jwt", Self.jwt(exp: now + 300) + "\n", mode: 0o644), 9, "mode 0644"),
            (write("two.jwt", Self.jwt(exp: now + 300) + "\n" + Self.jwt(exp: now + 300) + "\n"), 2, "one token on one line"),
            (write("opaque.jwt", "opaque\n"), 2, "does not hold a JWT"),
            (dir.path + "/missing.jwt", 9, "does not exist")
        ]
        for (path, code, words) in cases {
            for extra in [
                ["--flow", "jwt-bearer", "--assertion-file", path],
                ["--flow", "client-credentials", "--auth-method", "private_key_jwt", "--client-assertion-file", path]
            ] {
                let r = try cli.run(["login", "--issuer", Self.issuer, "--client-id", "w"] + extra)
                #expect(r.exitCode == code, "\(extra): \(r)")
                #expect(r.stderrText.contains(path) && r.stderrText.contains(words), "\(extra): \(r.stderrText)")
            }
        }
        // The assertion never reaches the output, whatever the failure.
        let secret = Self.jwt(exp: now - 10)
        let r = try cli.run([
            "-v", "login", "--issuer", Self.issuer, "--client-id", "w", "--flow", "jwt-bearer", "--assertion-file", cases[0].0
        ])
        #expect(!r.stderrText.contains(secret) && !r.stdoutText.contains(secret))
    }
}
