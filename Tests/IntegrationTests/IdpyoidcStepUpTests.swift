import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// What the step-up tests need: providers of their own (plain and TLS; the PAR suite counts the
/// pushed requests in its providers' logs by time, and suites run at the same time), the venv's
/// python (it has cryptojwt, which the resource verifies tokens with), the resource's script, and
/// the certificate the test CA signed for `localhost`, so the resource can be served over TLS too.
struct IdpyoidcStepUpEnvironment {
    let idp: IdpyoidcEnvironment
    let issuer: String, issuerTLS: String, log: String, logTLS: String
    let python: String, script: String, certificate: String, key: String

    func issuer(tls: Bool) -> String { tls ? issuerTLS : issuer }
    func log(tls: Bool) -> String { tls ? logTLS : log }

    static func load() throws -> IdpyoidcStepUpEnvironment {
        let env = HostEnvironment.current
        func v(_ name: String) throws -> String {
            try Requirement.environmentValue("LATCHKEY_IT_IDPYOIDC_" + name, environment: env)
        }
        return IdpyoidcStepUpEnvironment(
            idp: try IdpyoidcEnvironment.load(), issuer: try v("STEPUP_ISSUER"), issuerTLS: try v("STEPUP_ISSUER_TLS"),
            log: try v("STEPUP_LOG"), logTLS: try v("STEPUP_LOG_TLS"), python: try v("PYTHON"), script: try v("STEPUP_RESOURCE"),
            certificate: try v("TLS_CERT"), key: try v("TLS_KEY"))
    }
}

/// One running Tests/Harness/idpyoidc/stepup_resource.py: GET /api/report wants an access token
/// from the idpyoidc provider whose `acr` is `mfa`, else it answers with the RFC 9470 challenge.
final class StepUpResource {
    let url: String
    let logPath: String
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    init(_ env: IdpyoidcStepUpEnvironment, tls: Bool, maxAge: Int) throws {
        directory = try TemporaryDirectory(prefix: "latchkey-stepup-")
        logPath = directory.path + "/requests.log"
        let issuer = env.issuer(tls: tls)
        var arguments = ["-u", env.script, "--issuer", issuer, "--log", logPath, "--acr", "mfa", "--max-age", String(maxAge)]
        if tls { arguments += ["--ca-file", env.idp.caFile, "--tls", env.certificate, env.key] }
        process = try ChildProcess.spawn(env.python, arguments, environment: HostEnvironment.current)
        // Its first line is the port, printed once it listens.
        guard let line = process.nextLine(timeout: .seconds(20)), let port = Int(line) else {
            let result = process.waitForExit(timeout: .seconds(2))
            directory.remove()
            throw try Requirement.missing("stepup_resource.py did not start: \(result.stderrText.suffix(500))")
        }
        url = (tls ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)") + "/api/report"
    }

    /// The requests so far: `status`, `token` (the verified claims `acr`, `sub`), `error`.
    func log() -> [JSONValue] {
        JSONLines.objects((FileText.read(logPath) ?? "").split(separator: "\n").map(String.init))
    }

    deinit {
        process.terminate()
        directory.remove()
    }
}

/// The person at the browser: curl opens the authorization URL and does not follow the
/// redirect, so where it points is what gets pasted. With a cookie jar it is a browser that keeps
/// idpyoidc's session cookie between sign-ins (single sign-on); without, every sign-in is new.
struct PastingPerson {
    let curl: String
    let caFile: String
    let cookieJar: String?

    func redirect(for url: String) throws -> String {
        let jar = cookieJar.map { ["-b", $0, "-c", $0] } ?? []
        let browser = try ProcessRunner.run(
            curl, ["-s", "--cacert", caFile, "-o", "/dev/null", "-w", "%{redirect_url}"] + jar + [url], timeout: .seconds(30))
        #expect(browser.exitCode == 0 && browser.stdoutText.contains("code="), "browser: \(browser)")
        return browser.stdoutText
    }
}

/// RFC 9470 step-up against a real provider: idpyoidc 5.0.0 with two authentication methods
/// mapped to the acr values `pwd` and `mfa` (op.py), behind our own resource that asks for `mfa`.
/// Every sign-in is the code flow in paste mode, with the test as the person.
@Suite("idpyoidc 5.0.0 step-up (RFC 9470)", .serialized)
struct IdpyoidcStepUpTests {
    /// Runs `latchkey ARGS` whose sign-in is the paste flow: waits (up to a deadline) for the
    /// `authorization_url` event (on stdout for `login`, on stderr for `fetch --sign-in`, whose
    /// stdout is the resource's answer), lets `person` open it and pastes where it was sent.
    static func withPaste(
        _ latchkey: LatchkeyCommand, _ arguments: [String], eventsOnStderr: Bool, person: PastingPerson,
        timeout: Duration = .seconds(60)
    ) throws -> ProcessResult {
        let child = try latchkey.start(arguments, stdin: .pipe)
        defer { child.terminate() }
        let deadline = ContinuousClock.now + timeout
        var url: String?
        while url == nil && ContinuousClock.now < deadline {
            let output = child.outputSoFar()
            url = authorizationURL(in: eventsOnStderr ? output.stderr : output.stdout)
            if url != nil || !child.isRunning { break }
            // A wait on the child's output (both pipes are read meanwhile), not a sleep.
            _ = child.nextLine(timeout: .milliseconds(200))
        }
        if let url {
            #expect(child.write(Array((try person.redirect(for: url) + "\n").utf8)))
        } else {
            Issue.record("no authorization_url event: \(child.outputSoFar())")
        }
        child.closeStandardInput()
        let remaining = deadline - ContinuousClock.now
        return child.waitForExit(timeout: remaining > .zero ? remaining : .seconds(1))
    }

    /// The `url` of the first `authorization_url` event among complete JSON lines of `output`.
    static func authorizationURL(in output: [UInt8]) -> String? {
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        let event = JSONLines.objects(lines).first { $0["event"]?.stringValue == "authorization_url" }
        return event?["url"]?.stringValue
    }

    static func status(_ latchkey: LatchkeyCommand) throws -> JSONValue {
        let status = try latchkey.run(["--json", "status"])
        #expect(status.exitCode == 0, "status: \(status)")
        return try JSONParser().parse(Array(status.stdoutText.utf8))
    }

    /// The pushed authorization requests received since `since` (idpyoidc advertises PAR, so
    /// `--par auto` pushes: acr_values and max_age are in those).
    static func pushes(_ log: String, since: Double) -> [LoggedRequest] {
        ServerLog.read(log, since: since).filter { $0.path == "/par" }
    }

    @Test(
        "a pwd session gets the challenge; fetch --sign-in signs in for mfa and the retry succeeds (plain HTTP and TLS)",
        arguments: [false, true])
    func stepUpSignInAndRetry(tls: Bool) throws {
        let env = try IdpyoidcStepUpEnvironment.load()
        let curl = try IdpyoidcPARTests.curl()
        let issuer = env.issuer(tls: tls)
        let opLog = env.log(tls: tls)
        let resource = try StepUpResource(env, tls: tls, maxAge: 300)
        let ws = try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.idp.caFile])
        // A new browser each time: idpyoidc authenticates afresh with the method asked for.
        let person = PastingPerson(curl: curl, caFile: env.idp.caFile, cookieJar: nil)

        let started = wallClock()
        let login = try Self.withPaste(
            ws.latchkey,
            ["--json", "login", "--flow", "paste", "--issuer", issuer, "--client-id", env.idp.client, "--acr-values", "pwd"],
            eventsOnStderr: false, person: person)
        #expect(login.exitCode == 0, "login: \(login)")
        #expect(Self.pushes(opLog, since: started).map { $0.param("acr_values") } == ["pwd"])
        let before = try Self.status(ws.latchkey)
        #expect(before["acr"]?.stringValue == "pwd", "\(before)")
        #expect(before["auth_time"]?.stringValue?.isEmpty == false, "\(before)")

        // Without --sign-in: exit 3 and what the resource asks for, nothing interactive.
        let asked = try ws.latchkey.run(["--json", "fetch", resource.url])
        #expect(asked.exitCode == 3, "\(asked)")
        #expect(asked.stdoutLines.first == #"{"event":"step_up_required","acr_values":"mfa","max_age":300}"#, "\(asked)")

        let steppingUp = wallClock()
        // No --flow: the step-up signs in the way the profile last did (paste, remembered by login).
        let fetched = try Self.withPaste(
            ws.latchkey, ["--json", "fetch", "--sign-in", resource.url], eventsOnStderr: true, person: person)
        #expect(fetched.exitCode == 0, "fetch --sign-in: \(fetched)")
        let body = try? JSONParser().parse(Array(fetched.stdoutText.utf8))
        #expect(body?["report"]?.stringValue == "quarterly" && body?["acr"]?.stringValue == "mfa", "stdout: \(fetched.stdoutText)")
        let pushed = Self.pushes(opLog, since: steppingUp)
        #expect(pushed.count == 1, "one step-up sign-in: \(pushed.map(\.raw))")
        #expect(pushed.first?.param("acr_values") == "mfa" && pushed.first?.param("max_age") == "300", "\(pushed.map(\.raw))")
        let after = try Self.status(ws.latchkey)
        #expect(after["acr"]?.stringValue == "mfa", "\(after)")
        #expect(after["auth_time"]?.stringValue?.isEmpty == false, "\(after)")

        // What the resource saw: the pwd token twice (the plain fetch, the first try of the
        // --sign-in one), then the mfa token once.
        let seen = resource.log()
        #expect(seen.map { $0.number("status").map(Int.init) } == [401, 401, 200], "\(seen)")
        #expect(seen.map { $0["token"]?["acr"]?.stringValue } == ["pwd", "pwd", "mfa"], "\(seen)")

        // The resource checks the token for real: the same token with a broken signature is refused.
        let token = try ws.latchkey.run(["token"]).stdoutText.trimmed
        let header = ws.directory.path + "/forged-header"
        #expect(FileText.write("Authorization: Bearer \(token.dropLast(4))AAAA\n", to: header))
        let forged = try ProcessRunner.run(
            curl, ["-s", "--cacert", env.idp.caFile, "-o", "/dev/null", "-D", "-", "-H", "@" + header, resource.url])
        #expect(forged.stdoutText.hasPrefix("HTTP/1.1 401"), "\(forged)")
        #expect(forged.stdoutText.contains(#"error="invalid_token""#), "\(forged)")
    }

    /// idpyoidc answers acr_values with the method asked for, unless the browser still has its
    /// session from an earlier sign-in: then it reuses that authentication (measured: its acr is
    /// the earlier one), so the ID token says `pwd` to a request for `mfa`.
    @Test("an ID token with another acr than asked is exit 8 (plain HTTP and TLS)", arguments: [false, true])
    func anIDTokenWithTheWrongAcrIsExitEight(tls: Bool) throws {
        let env = try IdpyoidcStepUpEnvironment.load()
        let curl = try IdpyoidcPARTests.curl()
        let issuer = env.issuer(tls: tls)
        let opLog = env.log(tls: tls)
        let ws = try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.idp.caFile])
        let person = PastingPerson(curl: curl, caFile: env.idp.caFile, cookieJar: ws.directory.path + "/browser-cookies")
        func login(_ acr: String, as person: PastingPerson) throws -> ProcessResult {
            try Self.withPaste(
                ws.latchkey,
                ["--json", "login", "--flow", "paste", "--issuer", issuer, "--client-id", env.idp.client, "--acr-values", acr],
                eventsOnStderr: false, person: person)
        }

        let first = try login("pwd", as: person)
        #expect(first.exitCode == 0, "login: \(first)")
        let asking = wallClock()
        let wrong = try login("mfa", as: person)
        #expect(wrong.exitCode == 8, "\(wrong)")
        let error = JSONLines.events(wrong).last { $0["event"]?.stringValue == "error" }
        #expect(error?["message"]?.stringValue?.contains(#"acr is "pwd", expected one of "mfa""#) == true, "\(wrong)")
        let pushed = Self.pushes(opLog, since: asking)
        #expect(pushed.map { $0.param("acr_values") } == ["mfa"], "\(pushed.map(\.raw))")

        // The same request from a browser without that session gets mfa: the session was the cause.
        let fresh = try login("mfa", as: PastingPerson(curl: curl, caFile: env.idp.caFile, cookieJar: nil))
        #expect(fresh.exitCode == 0, "\(fresh)")
        #expect(try Self.status(ws.latchkey)["acr"]?.stringValue == "mfa")
    }
}
