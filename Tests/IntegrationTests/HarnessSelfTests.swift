import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The test machinery itself: if these fail, nothing else here can be trusted.
@Suite("Harness")
struct HarnessSelfTests {
    @Test("a child's stdout, stderr and exit status are captured; stdin is fed")
    func captureAndStdin() throws {
        let r = try ProcessRunner.run(
            "/bin/sh", ["-c", "read x; echo out:$x; echo err >&2; exit 7"],
            stdin: Array("hello\n".utf8), timeout: .seconds(10))
        #expect(r.exitCode == 7 && r.stdoutText == "out:hello\n" && r.stderrText == "err\n", "\(r)")
    }

    @Test("a timeout kills the whole process group")
    func timeout() throws {
        let r = try ProcessRunner.run("/bin/sh", ["-c", "sleep 30 & sleep 30"], timeout: .milliseconds(300))
        #expect(r.timedOut && r.elapsed < .seconds(5), "\(r)")
    }

    @Test("signals reach the child, which sees SIGINT at its default disposition")
    func signals() throws {
        let child = try ChildProcess.spawn("/bin/sleep", ["30"], environment: HostEnvironment.current)
        usleep(100_000)
        child.send(signal: SIGINT)
        let r = child.waitForExit(timeout: .seconds(5))
        #expect(r.terminatingSignal == SIGINT, "\(r)")
    }

    @Test("lines are read as they are written")
    func incrementalLines() throws {
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "echo one; sleep 0.3; echo two; sleep 30"],
            environment: HostEnvironment.current)
        #expect(child.nextLine(timeout: .seconds(5)) == "one")
        #expect(child.nextLine(timeout: .seconds(5)) == "two")
        #expect(child.nextLine(timeout: .milliseconds(200)) == nil)
        child.terminate()
    }

    @Test("requireOrSkip fails under CI=true instead of skipping")
    func requirementFailsUnderCI() {
        #expect(throws: RequirementMissing.self) {
            _ = try Requirement.requireOrSkip(Optional<Int>.none, "nothing", environment: ["CI": "true"])
        }
        #expect((try? Requirement.requireOrSkip(Optional(3), "present", environment: ["CI": "true"])) == 3)
    }

    @Test("without LATCHKEY_BIN, the latchkey built beside the test executable, not the newest of any build folder")
    func locatesTheBinaryOfThisBuild() throws {
        let me = try #require(LatchkeyBinary.currentExecutable())
        let folder = String(me[..<(try #require(me.lastIndex(of: "/")))])
        #expect(try LatchkeyBinary.locate(environment: [:]) == folder + "/latchkey")
        // A test executable with no latchkey beside it falls back to the newest build folder's.
        let elsewhere = try LatchkeyBinary.locate(environment: [:], testExecutable: "/nonexistent/tests.xctest")
        #expect(elsewhere.hasSuffix("/debug/latchkey"), "\(elsewhere)")
    }

    @Test("the package root and the binary are found")
    func locating() throws {
        #expect(PackagePaths.exists(PackagePaths.root() + "/Package.swift"))
        #expect(PackagePaths.exists(PackagePaths.harness() + "/scripted_idp.py"))
        let binary = try LatchkeyBinary.locate()
        let version = try ProcessRunner.run(binary, ["--version"], timeout: .seconds(10))
        #expect(version.exitCode == 0 && version.stdoutText.hasPrefix("latchkey "), "\(version)")
    }

    @Test("the scripted server starts, answers discovery and logs the request")
    func scriptedServer() throws {
        let server = try ScriptedIdP(scenario: "ok")
        defer { server.stop() }
        let r = try ProcessRunner.run(
            "/usr/bin/curl", ["-fsS", server.issuer + "/.well-known/openid-configuration"],
            timeout: .seconds(10))
        let meta = try JSONParser().parse(r.stdoutText)
        #expect(meta["issuer"]?.stringValue == server.issuer)
        #expect(r.exitCode == 0, "\(r)")
        #expect(ServerLog.read(server.logPath).map(\.path) == ["/.well-known/openid-configuration"])
    }

    @Test("the Glewlwyd IdP is up behind TLS with the test CA, and the proxy counts requests")
    func glewlwydUp() throws {
        let env = try IntegrationEnvironment.load()
        let started = wallClock()
        let r = try ProcessRunner.run(
            "/usr/bin/curl",
            [
                "-fsS", "--cacert", env.caFile,
                env.issuerTLS + "/.well-known/openid-configuration"
            ], timeout: .seconds(10))
        let meta = try JSONParser().parse(r.stdoutText)
        #expect(meta["issuer"]?.stringValue == env.issuerTLS)
        #expect(meta["device_authorization_endpoint"]?.stringValue?.hasPrefix("https://localhost:") == true)
        #expect(ServerLog.read(env.proxyLogTLS, since: started).count == 1)
    }
}
