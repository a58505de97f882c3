import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `LATCHKEY_PASSPHRASE` and `LATCHKEY_CLIENT_SECRET` are taken out of the environment when
/// latchkey starts, so no child (`--open`'s `xdg-open`, and whatever it starts) inherits them,
/// and `/proc/PID/environ` of latchkey itself no longer shows them. A fake `xdg-open` first on
/// PATH records both.
@Suite("latchkey binary: secrets do not stay in the environment")
struct SecretEnvironmentTests {
    static let passphrase = "env-passphrase-7f3a"
    static let clientSecret = "env-client-secret-91c2"

    @Test func browserOpenerInheritsNoSecrets() throws {
        let curl = try Requirement.requireOrSkip(
            access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil,
            "curl is not installed")
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let bin = dir.path + "/bin"
        mkdir(bin, 0o700)
        let childDump = dir.path + "/xdg-open.env"
        let parentDump = dir.path + "/latchkey.environ"
        // Its own environment, then its parent's (latchkey, which posix_spawn made its parent).
        let fake = """
            #!/bin/sh
            env > \(parentDump).tmp-child && mv \(parentDump).tmp-child \(childDump)
            tr '\\000' '\\n' < /proc/$PPID/environ > \(parentDump).tmp && mv \(parentDump).tmp \(parentDump)
            """
        #expect(FileText.write(fake + "\n", to: bin + "/xdg-open"))
        chmod(bin + "/xdg-open", 0o700)
        let outer = HostEnvironment.current["PATH"] ?? "/usr/bin:/bin"
        let cli = try LatchkeyCommand(
            stateDirectory: dir.path + "/state",
            extraEnvironment: [
                "PATH": bin + ":" + outer,
                "LATCHKEY_PASSPHRASE": Self.passphrase,
                "LATCHKEY_CLIENT_SECRET": Self.clientSecret
            ])
        let child = try cli.start([
            "login", "--json", "--flow", "browser", "--open", "--key-source", "passphrase",
            "--issuer", idp.issuer, "--client-id", "c"
        ])
        let first = try #require(child.nextLine(timeout: .seconds(30)))
        let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
        // Wait for the opener to have run while latchkey still waits for the redirect.
        var waited = 0
        while access(parentDump, F_OK) != 0 && waited < 200 { usleep(50_000); waited += 1 }
        let childEnvironment = try #require(FileText.read(childDump), "the fake xdg-open did not run")
        let parentEnvironment = try #require(FileText.read(parentDump), "the fake xdg-open could not read latchkey's environ")
        let browser = try ProcessRunner.run(curl, ["-s", "-L", "-o", "/dev/null", "-w", "%{http_code}", url])
        #expect(browser.stdoutText == "200", "\(browser)")
        let result = child.waitForExit(timeout: .seconds(30))
        #expect(result.exitCode == 0, "login: \(result)")

        #expect(childEnvironment.contains("PATH="), "\(childEnvironment)")  // the dump is real
        for (name, value) in [("LATCHKEY_PASSPHRASE", Self.passphrase), ("LATCHKEY_CLIENT_SECRET", Self.clientSecret)] {
            let (childHasName, childHasValue) = (childEnvironment.contains(name), childEnvironment.contains(value))
            let parentHasValue = parentEnvironment.contains(value)
            #expect(!childHasName, "xdg-open inherited \(name)")
            #expect(!childHasValue, "xdg-open inherited the value of \(name)")
            #expect(!parentHasValue, "/proc/PID/environ of latchkey still shows \(name)")
        }
        // The values were still used: the token file opens with the passphrase from the environment.
        let token = try cli.run(["token"])
        #expect(token.exitCode == 0, "\(token)")
        var without = cli.environment
        without["LATCHKEY_PASSPHRASE"] = nil
        let denied = try ProcessRunner.run(cli.binary, ["--state-dir", cli.stateDirectory, "token"], environment: without)
        #expect(denied.exitCode == 9, "the token file was not sealed with the passphrase: \(denied)")
    }
}
