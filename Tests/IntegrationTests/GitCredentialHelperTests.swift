import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// A real `git` over HTTPS to a local smart-HTTP forge (Tests/Harness/git_http_server.py: git's own
/// `git http-backend` behind a TLS server of the harness's throwaway CA) that accepts only a
/// password that is a live access token at Glewlwyd. `latchkey credential` is git's helper, after a
/// device login at Glewlwyd with `--credential-host` naming the forge.
@Suite("git over HTTPS with latchkey as credential helper", .serialized)
struct GitCredentialHelperTests {
    /// One running forge and its request log.
    final class Forge {
        let process: ChildProcess
        let port: Int
        let log: String
        let revoked: String
        var host: String { "localhost:\(port)" }
        var url: String { "https://localhost:\(port)/project.git" }

        init(root: String, scratch: String, name: String, env: IntegrationEnvironment, state: String) throws {
            log = scratch + "/\(name).jsonl"
            revoked = scratch + "/\(name).revoked"
            process = try ChildProcess.spawn(
                env.python,
                [
                    PackagePaths.harness() + "/git_http_server.py", "--root", root, "--userinfo", env.issuer + "/userinfo",
                    "--cert", state + "/ca/server.pem", "--key", state + "/ca/server.key", "--log", log, "--revoked", revoked
                ], environment: HostEnvironment.current, stdin: .pipe)
            guard let line = process.nextLine(timeout: .seconds(20)), line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
                let result = process.waitForExit(timeout: .seconds(2))
                throw try Requirement.missing("git_http_server.py did not start: \(result.stderrText.suffix(500))")
            }
            self.port = port
        }

        /// Every request the forge answered, one JSON object each.
        func requests() throws -> [JSONObject] {
            try (FileText.read(log) ?? "").split(separator: "\n").map { try JSONParser().parseObject(Array($0.utf8)) }
        }

        deinit { process.terminate() }
    }

    static func sha256(_ text: String) throws -> String {
        String(try ProcessRunner.run("/usr/bin/sha256sum", ["-"], stdin: Array(text.utf8)).stdoutText.prefix(64))
    }

    /// Runs git with only the configuration given here: latchkey as the first helper, then a
    /// fallback helper that answers a wrong password (so "gets nothing from latchkey" shows as the
    /// fallback's answer reaching the server).
    static func git(_ ws: Workspace, home: String, ca: String, _ arguments: [String], in folder: String? = nil) throws -> ProcessResult {
        let git = try Requirement.requireOrSkip(
            access("/usr/bin/git", X_OK) == 0 ? "/usr/bin/git" : nil,
            "git is not installed (apt-get install git)")
        var env = GitEnvironment.isolated(ws.latchkey.environment, home: home)
        env["GIT_AUTHOR_NAME"] = "Alice"; env["GIT_AUTHOR_EMAIL"] = "alice@example.test"
        env["GIT_COMMITTER_NAME"] = "Alice"; env["GIT_COMMITTER_EMAIL"] = "alice@example.test"
        let helper = "!'\(ws.latchkey.binary)' --state-dir '\(ws.latchkey.stateDirectory)' credential"
        let fallback = "!f() { test \"$1\" = get && printf 'username=fallback\\npassword=not-a-token\\n'; }; f"
        let config = [
            "-c", "credential.helper=", "-c", "credential.helper=" + helper, "-c", "credential.helper=" + fallback,
            "-c", "http.sslCAInfo=" + ca, "-c", "init.defaultBranch=main", "-c", "protocol.version=2"
        ]
        let location = folder.map { ["-C", $0] } ?? []
        return try ProcessRunner.run(git, location + config + arguments, environment: env, timeout: .seconds(60))
    }

    @Test("clone and push with the helper's token; another host gets nothing; a rejected token is refreshed on the next get")
    func cloneAndPushOverHTTPS() throws {
        let env = try IntegrationEnvironment.load()
        let state = try Requirement.environmentValue("LATCHKEY_IT_STATE")
        _ = try Requirement.requireOrSkip(
            access("/usr/lib/git-core/git-http-backend", X_OK) == 0 ? true : nil,
            "git http-backend is missing (apt-get install git)")
        let ws = try Workspace.glewlwyd(env)
        let scratch = ws.directory.path
        let home = scratch + "/home"
        _ = mkdir(home, 0o700)
        let root = scratch + "/repos"
        _ = mkdir(root, 0o700)

        // A bare repository with one commit, made locally (no network, no helper).
        #expect(try Self.git(ws, home: home, ca: env.caFile, ["init", "-q", "--bare", root + "/project.git"]).exitCode == 0)
        #expect(try Self.git(ws, home: home, ca: env.caFile, ["init", "-q", scratch + "/seed"]).exitCode == 0)
        #expect(FileText.write("hello\n", to: scratch + "/seed/README"))
        #expect(try Self.git(ws, home: home, ca: env.caFile, ["add", "README"], in: scratch + "/seed").exitCode == 0)
        #expect(try Self.git(ws, home: home, ca: env.caFile, ["commit", "-qm", "seed"], in: scratch + "/seed").exitCode == 0)
        let seeded = try Self.git(ws, home: home, ca: env.caFile, ["push", "-q", root + "/project.git", "main"], in: scratch + "/seed")
        #expect(seeded.exitCode == 0, "\(seeded)")
        #expect(
            try Self.git(
                ws, home: home, ca: env.caFile,
                ["--git-dir", root + "/project.git", "config", "http.receivepack", "true"]
            ).exitCode == 0)

        let forge = try Forge(root: root, scratch: scratch, name: "forge", env: env, state: state)
        let other = try Forge(root: root, scratch: scratch, name: "other", env: env, state: state)

        // Sign in at Glewlwyd, naming the forge as the credential host.
        let login = try GlewlwydDeviceFlowTests.login(
            ws, env, issuer: env.issuer, client: env.clientES256,
            extra: ["--dpop", "never", "--credential-host", forge.host])
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        let token = try #require(try ws.latchkey.run(["token"]).stdoutLines.first)
        let tokenHash = try Self.sha256(token)

        // Without credentials the forge refuses (so the clone below is the token's doing).
        let bare = try ProcessRunner.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", env.caFile,
                forge.url + "/info/refs?service=git-upload-pack"
            ])
        #expect(bare.stdoutText == "401", "\(bare)")

        // clone: git meets the 401, asks latchkey, sends oauth2:<token>, the forge checks it at Glewlwyd.
        let clone = try Self.git(ws, home: home, ca: env.caFile, ["clone", "-q", forge.url, scratch + "/work"])
        #expect(clone.exitCode == 0, "clone: \(clone)")
        #expect(FileText.read(scratch + "/work/README") == "hello\n")
        let accepted = try forge.requests().filter { $0["status"] != .number("401") }
        #expect(!accepted.isEmpty)
        #expect(
            accepted.allSatisfy { $0["user"] == .string("oauth2") && $0["password_sha256"] == .string(tokenHash) },
            "\(accepted)")
        #expect(accepted.allSatisfy { $0["idp_status"] == .number("200") })

        // push: a new commit lands in the bare repository.
        #expect(FileText.write("hello\nagain\n", to: scratch + "/work/README"))
        #expect(try Self.git(ws, home: home, ca: env.caFile, ["commit", "-qam", "second"], in: scratch + "/work").exitCode == 0)
        let push = try Self.git(ws, home: home, ca: env.caFile, ["push", "-q", "origin", "main"], in: scratch + "/work")
        #expect(push.exitCode == 0, "push: \(push)")
        let head = try Self.git(ws, home: home, ca: env.caFile, ["--git-dir", root + "/project.git", "log", "-1", "--format=%s", "main"])
        #expect(head.stdoutLines == ["second"], "\(head)")
        #expect(
            try forge.requests().contains {
                $0["path"]?.stringValue?.hasSuffix("/git-receive-pack") == true && $0["status"] == .number("200")
            })

        // Another host (the same forge on another port): latchkey answers nothing, git falls to the
        // next helper, whose password the forge refuses; the token never reaches that host.
        let elsewhere = try Self.git(ws, home: home, ca: env.caFile, ["ls-remote", other.url])
        #expect(elsewhere.exitCode != 0, "\(elsewhere)")
        let seen = try other.requests()
        #expect(seen.contains { $0["user"] == .string("fallback") }, "\(seen)")
        #expect(!seen.contains { $0["password_sha256"] == .string(tokenHash) || $0["user"] == .string("oauth2") }, "\(seen)")

        // The forge now refuses the token (as after a revocation): git rejects the credential,
        // which makes latchkey erase it, and the next get refreshes at Glewlwyd first.
        #expect(FileText.write(tokenHash + "\n", to: forge.revoked))
        let refused = try Self.git(ws, home: home, ca: env.caFile, ["ls-remote", forge.url])
        #expect(refused.exitCode != 0, "\(refused)")
        let started = wallClock()
        let again = try Self.git(ws, home: home, ca: env.caFile, ["ls-remote", forge.url])
        #expect(again.exitCode == 0, "after erase: \(again)")
        let refreshes = ServerLog.read(env.proxyLog, since: started)
            .filter { $0.param("grant_type") == "refresh_token" && $0.param("client_id") == env.clientES256 }
        #expect(refreshes.count == 1, "the IdP saw one refresh")
        let fresh = try #require(try ws.latchkey.run(["token"]).stdoutLines.first)
        #expect(fresh != token)
        let last = try #require(try forge.requests().last)
        #expect(last["password_sha256"] == .string(try Self.sha256(fresh)) && last["idp_status"] == .number("200"), "\(last)")
    }
}
