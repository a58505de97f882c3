import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// DPoP (RFC 9449) against the real Glewlwyd: its plugins `dpop` and `dpopnonce`. What Glewlwyd
/// does is proved first by Tests/Harness/idp/dpop_probe.py with hand-made proofs (the harness
/// suite below); the Latchkey suite then drives the `latchkey` binary per the CLI contract and
/// checks its output with raw HTTP (curl) and the probe's independent thumbprint.
// Serialized: both probes use the probe client, and Glewlwyd keeps one DPoP nonce per client across
// plugins, so the nonce probe running beside the other made its public-client revocation checks
// answer a bare 401 (seen once in CI).
@Suite("Glewlwyd DPoP harness", .serialized)
struct GlewlwydDPoPHarnessTests {
    /// Runs the probe; every check it prints must hold, and `expected` checks must be among them.
    static func probe(_ dpop: DPoPIdP, _ arguments: [String], expected: [String]) throws {
        let r = try ProcessRunner.run(dpop.base.python, [dpop.probe] + arguments, timeout: .seconds(90))
        let checks = JSONLines.objects(r.stdoutLines).filter { $0["check"] != nil }
        for check in checks where check["ok"]?.boolValue != true {
            Issue.record("probe check failed: \(check)")
        }
        let names = checks.compactMap { $0["check"]?.stringValue }
        for name in expected {
            #expect(names.contains(name), "probe did not run '\(name)': \(names)")
        }
        #expect(r.exitCode == 0, "dpop_probe.py \(arguments): \(r) \(r.stderrText)")
    }

    @Test("binding, refresh with the same key, refusals that leave the refresh token usable, /userinfo, revocation")
    func binding() throws {
        let dpop = try DPoPIdP.load()
        try Self.probe(
            dpop,
            [
                "--issuer", dpop.issuer, "--client-id", dpop.probeClient, "--ca-file", dpop.base.caFile,
                "--confidential-client-id", dpop.confidentialClient,
                "--confidential-secret-file", dpop.secretFile
            ],
            expected: [
                "device token with a proof: 200, token_type DPoP",
                "access token cnf.jkt = the proof key's RFC 7638 thumbprint",
                "userinfo with the bound token as Bearer -> refused",
                "refresh with a proof from another key -> 403 invalid_dpop_proof",
                "refresh with a wrong htu -> 403 invalid_dpop_proof",
                "refresh reusing a jti -> 403 invalid_dpop_proof (the refresh token stays usable)",
                "stolen refresh token replayed with the thief's key -> 403 invalid_dpop_proof",
                "after all these refusals the refresh token still works (200)",
                "confidential client: revoke the bound refresh token with Basic auth (+ a proof, ignored) -> 200"
            ])
    }

    @Test("mandatory nonces: 400 use_dpop_nonce at /token, 401 WWW-Authenticate use_dpop_nonce at /userinfo")
    func nonces() throws {
        let dpop = try DPoPIdP.load()
        try Self.probe(
            dpop, ["--issuer", dpop.issuerNonce, "--client-id", dpop.probeClient, "--nonce"],
            expected: [
                "nonce: approved poll without a nonce -> 400 use_dpop_nonce + DPoP-Nonce",
                "nonce: refresh with the nonce -> 200 (the refresh token survived the challenges)",
                #"nonce: userinfo without a nonce -> 401 WWW-Authenticate: DPoP error="use_dpop_nonce" + DPoP-Nonce"#,
                "nonce: userinfo with the nonce -> 200"
            ])
    }
}

/// The `latchkey` binary with DPoP against Glewlwyd. Serialized: the tests share the proxy logs
/// and the DPoP client, whose server nonce is per client.
@Suite("Glewlwyd DPoP", .serialized)
struct GlewlwydDPoPTests {
    /// What one DPoP login left behind, read back through the CLI.
    struct Session {
        let ws: Workspace
        let outcome: DeviceLogin.Outcome
        var authorized: JSONValue? { outcome.events.first { $0["event"]?.stringValue == "authorized" } }
    }

    static func login(
        _ dpop: DPoPIdP, issuer: String, client: String? = nil, dpopMode: String? = "always",
        extra: [String] = []
    ) throws -> Session {
        let ws = try Workspace.glewlwyd(dpop.base)
        let mode = dpopMode.map { ["--dpop", $0] } ?? []
        let outcome = try GlewlwydDeviceFlowTests.login(
            ws, dpop.base, issuer: issuer, client: client ?? dpop.client,
            extra: mode + extra)
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) \(outcome.result.stderrText)")
        return Session(ws: ws, outcome: outcome)
    }

    /// `latchkey token --format header --method M --url URL`: the two header lines, parsed.
    static func headerLines(_ ws: Workspace, method: String = "GET", url: String) throws -> (authorization: String, proof: String) {
        let r = try ws.latchkey.run(["token", "--format", "header", "--method", method, "--url", url])
        #expect(r.exitCode == 0, "token --format header: \(r) \(r.stderrText)")
        let lines = r.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "two header lines expected: \(lines)")
        let authorization = lines.first { $0.hasPrefix("Authorization: DPoP ") } ?? ""
        let proof = lines.first { $0.hasPrefix("DPoP: ") }.map { String($0.dropFirst("DPoP: ".count)) } ?? ""
        #expect(!authorization.isEmpty && !proof.isEmpty, "header lines: \(lines)")
        return (authorization, proof)
    }

    /// The access token's `cnf.jkt`.
    static func boundThumbprint(_ ws: Workspace) throws -> String? {
        let token = try ws.latchkey.run(["token"])
        #expect(token.exitCode == 0, "token: \(token)")
        return jwtPayload(token.stdoutText.trimmed)?["cnf"]?["jkt"]?.stringValue
    }

    static func userinfo(_ issuer: String) -> String { issuer + "/userinfo" }
    static func tokenEndpoint(_ issuer: String) -> String { issuer + "/token" }

    @Test("device login with --dpop always: token_binding dpop, status says so, cnf.jkt is our key's thumbprint")
    func deviceLoginBinds() throws {
        let dpop = try DPoPIdP.load()
        let started = wallClock()
        let session = try Self.login(dpop, issuer: dpop.issuer)
        #expect(session.authorized?["token_binding"]?.stringValue == "dpop", "authorized: \(String(describing: session.authorized))")
        let status = try session.ws.latchkey.run(["status"])
        #expect(status.exitCode == 0 && status.stdoutText.contains("token binding: dpop"), "status: \(status) \(status.stdoutText)")

        // The thumbprint of the key in Latchkey's proofs (computed by the probe, not by Latchkey)
        // is the one Glewlwyd bound the token to.
        let jkt = try #require(try Self.boundThumbprint(session.ws), "no cnf.jkt in the access token")
        let header = try Self.headerLines(session.ws, url: Self.userinfo(dpop.issuer))
        #expect(try dpop.thumbprint(ofProof: header.proof) == jkt)
        let proof = try session.ws.latchkey.run(["proof", "--method", "POST", "--url", dpop.issuer + "/some/resource"])
        #expect(proof.exitCode == 0, "proof: \(proof) \(proof.stderrText)")
        #expect(try dpop.thumbprint(ofProof: proof.stdoutText.trimmed) == jkt)
        let claims = jwtPayload(proof.stdoutText.trimmed)
        #expect(claims?["htm"]?.stringValue == "POST" && claims?["htu"]?.stringValue == dpop.issuer + "/some/resource")
        #expect(claims?["ath"]?.stringValue != nil, "a resource proof carries ath: \(String(describing: claims))")
        #expect(jwtHeader(proof.stdoutText.trimmed)?["typ"]?.stringValue == "dpop+jwt")

        // Server side: the successful device poll carried a proof for exactly the token endpoint.
        let polls = ServerLog.read(dpop.base.proxyLog, since: started).filter { $0.isDevicePoll && $0.param("client_id") == dpop.client }
        let granted = try #require(polls.last { $0.status == 200 }, "no successful poll: \(polls.map(\.raw))")
        #expect(granted.raw["dpop"]?["htu"]?.stringValue == Self.tokenEndpoint(dpop.issuer), "\(granted.raw)")
        #expect(granted.raw["dpop"]?["htm"]?.stringValue == "POST")
        #expect(polls.allSatisfy { $0.raw["dpop"]?["jti"] != nil }, "every poll carries a proof: \(polls.map(\.raw))")
        let jtis = polls.compactMap { $0.raw["dpop"]?["jti"]?.stringValue }
        #expect(Set(jtis).count == jtis.count, "a fresh jti per proof: \(jtis)")
    }

    @Test("--dpop auto (the default) uses DPoP where the metadata lists ES256, and not where it does not")
    func autoFollowsMetadata() throws {
        let dpop = try DPoPIdP.load()
        let bound = try Self.login(dpop, issuer: dpop.issuer, dpopMode: nil)
        #expect(bound.authorized?["token_binding"]?.stringValue == "dpop", "\(String(describing: bound.authorized))")
        let plain = try Self.login(dpop, issuer: dpop.base.issuer, client: dpop.base.clientES256, dpopMode: nil)
        #expect(plain.authorized?["token_binding"]?.stringValue == "none", "\(String(describing: plain.authorized))")
        let status = try plain.ws.latchkey.run(["status"])
        #expect(status.stdoutText.contains("token binding: none"), "status: \(status.stdoutText)")
    }

    @Test("token --format header: Glewlwyd's /userinfo accepts the pair; the token as Bearer and a replayed pair are refused")
    func headerAtUserinfo() throws {
        let dpop = try DPoPIdP.load()
        let session = try Self.login(dpop, issuer: dpop.issuer)
        let url = Self.userinfo(dpop.issuer)
        let pair = try Self.headerLines(session.ws, url: url)
        let claims = jwtPayload(pair.proof)
        #expect(claims?["htm"]?.stringValue == "GET" && claims?["htu"]?.stringValue == url, "\(String(describing: claims))")
        let accepted = try dpop.get(url, headers: [pair.authorization, "DPoP: " + pair.proof])
        #expect(accepted.status == 200 && accepted.body.contains("\"sub\""), "userinfo with the pair: \(accepted)")

        let replayed = try dpop.get(url, headers: [pair.authorization, "DPoP: " + pair.proof])
        #expect(replayed.status == 401, "the same proof twice (jti reuse): \(replayed)")
        let token = String(pair.authorization.dropFirst("Authorization: DPoP ".count))
        let bearer = try dpop.get(url, headers: ["Authorization: Bearer " + token])
        #expect(bearer.status == 401, "the bound token as Bearer: \(bearer)")
        let fresh = try Self.headerLines(session.ws, url: url)
        #expect(fresh.proof != pair.proof, "a new proof per call")
        let again = try dpop.get(url, headers: [fresh.authorization, "DPoP: " + fresh.proof])
        #expect(again.status == 200, "a fresh pair: \(again)")

        // Without --method/--url a DPoP session cannot print a header: usage error.
        let bare = try session.ws.latchkey.run(["token", "--format", "header"])
        #expect(bare.exitCode == 2, "token --format header without the request: \(bare)")
    }

    @Test("refresh sends a proof with the session's key; the new token is bound to the same key")
    func refreshWithProof() throws {
        let dpop = try DPoPIdP.load()
        let session = try Self.login(dpop, issuer: dpop.issuer)
        let before = try Self.boundThumbprint(session.ws)
        let first = try session.ws.latchkey.run(["token"])
        let started = wallClock()
        let refreshed = try session.ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "refresh: \(refreshed) \(refreshed.stderrText)")
        let second = try session.ws.latchkey.run(["token"])
        #expect(second.exitCode == 0 && second.stdoutText != first.stdoutText, "token after refresh: \(second)")
        #expect(try Self.boundThumbprint(session.ws) == before)
        let refreshes = ServerLog.read(dpop.base.proxyLog, since: started).filter { $0.isRefresh && $0.param("client_id") == dpop.client }
        #expect(refreshes.count == 1 && refreshes.first?.status == 200, "\(refreshes.map(\.raw))")
        #expect(refreshes.first?.raw["dpop"]?["htu"]?.stringValue == Self.tokenEndpoint(dpop.issuer), "\(refreshes.map(\.raw))")
        let url = Self.userinfo(dpop.issuer)
        let pair = try Self.headerLines(session.ws, url: url)
        #expect(try dpop.get(url, headers: [pair.authorization, "DPoP: " + pair.proof]).status == 200)
    }

    @Test("mandatory nonces: the login retries /token once with the DPoP-Nonce; later refresh and /userinfo carry it")
    func mandatoryNonces() throws {
        let dpop = try DPoPIdP.load()
        let started = wallClock()
        let session = try Self.login(dpop, issuer: dpop.issuerNonce)
        #expect(session.authorized?["token_binding"]?.stringValue == "dpop")
        let polls = ServerLog.read(dpop.base.proxyLog, since: started)
            .filter { $0.isDevicePoll && $0.param("client_id") == dpop.client && $0.path.hasPrefix("/api/dpopnonce/") }
        let challenges = polls.filter { $0.error == "use_dpop_nonce" }
        // A fresh session knows no nonce: exactly one challenge (Glewlwyd answers authorization_pending
        // before it reads the proof, so it comes on the first poll after approval), then the retry.
        #expect(challenges.count == 1, "one nonce challenge, answered at once: \(polls.map(\.raw))")
        let granted = try #require(polls.last { $0.status == 200 }, "\(polls.map(\.raw))")
        let nonce = try #require(challenges.first?.raw["dpop_nonce"]?.stringValue, "challenge without DPoP-Nonce")
        #expect(granted.raw["dpop"]?["nonce"]?.stringValue == nonce, "the granted poll carried the nonce: \(granted.raw)")

        // A later process remembers the nonce (session file): the refresh needs no new challenge.
        let refreshStarted = wallClock()
        let refreshed = try session.ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "refresh: \(refreshed) \(refreshed.stderrText)")
        let refreshes = ServerLog.read(dpop.base.proxyLog, since: refreshStarted).filter {
            $0.isRefresh && $0.param("client_id") == dpop.client
        }
        #expect(refreshes.count == 1 && refreshes.first?.status == 200, "\(refreshes.map(\.raw))")
        #expect(refreshes.first?.raw["dpop"]?["nonce"]?.stringValue == nonce, "\(refreshes.map(\.raw))")

        // Glewlwyd's /userinfo wants the same per-client nonce; the proof for it carries the
        // nonce Latchkey remembers for this server.
        let url = Self.userinfo(dpop.issuerNonce)
        let pair = try Self.headerLines(session.ws, url: url)
        #expect(jwtPayload(pair.proof)?["nonce"]?.stringValue != nil, "resource proof without a nonce: \(pair.proof)")
        let answer = try dpop.get(url, headers: [pair.authorization, "DPoP: " + pair.proof])
        #expect(answer.status == 200, "userinfo with the remembered nonce: \(answer)")
    }

    @Test("over TLS, a confidential client: login, /userinfo, refresh, logout revokes; a saved copy cannot refresh")
    func overTLSWithRevocation() throws {
        let dpop = try DPoPIdP.load()
        let issuer = dpop.issuerTLS
        let session = try Self.login(
            dpop, issuer: issuer, client: dpop.confidentialClient,
            extra: [
                "--client-secret-file", dpop.secretFile(for: issuer),
                "--auth-method", "client_secret_basic"
            ])
        #expect(session.authorized?["token_binding"]?.stringValue == "dpop")
        let url = Self.userinfo(issuer)
        let pair = try Self.headerLines(session.ws, url: url)
        #expect(try dpop.get(url, headers: [pair.authorization, "DPoP: " + pair.proof]).status == 200)
        let refreshed = try session.ws.latchkey.run(["refresh", "--client-secret-file", dpop.secretFile(for: issuer)])
        #expect(refreshed.exitCode == 0, "refresh over TLS: \(refreshed) \(refreshed.stderrText)")

        let copy = try session.ws.snapshot()
        let started = wallClock()
        let logout = try session.ws.latchkey.run(["logout", "--client-secret-file", dpop.secretFile(for: issuer)])
        #expect(logout.exitCode == 0, "logout: \(logout) \(logout.stderrText)")
        let revoked = ServerLog.read(dpop.base.proxyLogTLS, since: started)
            .filter { $0.path.hasSuffix("/revoke") && $0.status == 200 }.map { $0.param("token_type_hint") ?? "?" }
        #expect(revoked == ["refresh_token", "access_token"], "successful revocations: \(revoked)")
        // The copy made before logout holds the same refresh token and key: Glewlwyd refuses it now.
        let stale = try copy.latchkey.run(["refresh", "--client-secret-file", dpop.secretFile(for: issuer)])
        #expect(stale.exitCode == 3, "refresh with the revoked token: \(stale)")
    }

    @Test("logout of a public DPoP client deletes the session even though Glewlwyd's /revoke refuses it")
    func publicLogout() throws {
        let dpop = try DPoPIdP.load()
        let session = try Self.login(dpop, issuer: dpop.issuer)
        let started = wallClock()
        let logout = try session.ws.latchkey.run(["logout"])
        #expect(logout.exitCode == 0, "logout: \(logout) \(logout.stderrText)")
        #expect(!logout.stderrText.isEmpty, "a failed revocation is warned about")
        // Glewlwyd checks a bound token's proof at /revoke against `<issuer>revoke` (no slash), so a
        // correct proof is refused (dpop_probe.py measures it); if this changes, revisit the docs.
        let revokes = ServerLog.read(dpop.base.proxyLog, since: started).filter { $0.path.hasSuffix("/revoke") }
        #expect(!revokes.isEmpty && revokes.allSatisfy { $0.status == 401 }, "\(revokes.map(\.raw))")
        #expect(
            revokes.contains {
                $0.raw["auth_scheme"]?.stringValue == "DPoP" && $0.raw["dpop"]?["htu"]?.stringValue == dpop.issuer + "/revoke"
            },
            "the retry carries the bound token with a proof for the revocation endpoint: \(revokes.map(\.raw))")
        let status = try session.ws.latchkey.run(["status"])
        #expect(status.exitCode == 3, "status after logout: \(status)")
    }

    @Test("stolen file: the whole state folder on another machine (another machine id) does not open")
    func stolenStateFolder() throws {
        let dpop = try DPoPIdP.load()
        let session = try Self.login(dpop, issuer: dpop.issuer)
        let copy = try session.ws.snapshot()
        // Control: on this machine the copy opens (so the refusal below is the machine id's doing).
        let here = try copy.latchkey.run(["status"])
        #expect(here.exitCode == 0 && here.stdoutText.contains("token binding: dpop"), "copy on the same machine: \(here)")

        let unshare = try Requirement.requireOrSkip(
            ["/usr/bin/unshare", "/bin/unshare"].first(where: PackagePaths.exists),
            "unshare (util-linux) for a private /etc/machine-id")
        let otherID = copy.directory.path + "/other-machine-id"
        #expect(FileText.write("0123456789abcdef0123456789abcdef\n", to: otherID))
        let script = #"mount --bind "$1" /etc/machine-id && shift && exec "$@""#
        let elsewhere = try ProcessRunner.run(
            unshare,
            [
                "-m", "/bin/sh", "-c", script, "sh", otherID,
                copy.latchkey.binary, "--state-dir", copy.latchkey.stateDirectory, "token"
            ],
            environment: copy.latchkey.environment, timeout: .seconds(30))
        if elsewhere.stderrText.contains("mount") || elsewhere.stderrText.contains("unshare") {
            throw try Requirement.missing("a private mount namespace (root) to fake another machine id: \(elsewhere.stderrText)")
        }
        #expect(elsewhere.exitCode == 9, "token with another machine id: \(elsewhere) \(elsewhere.stderrText)")
        #expect(elsewhere.stdout.isEmpty, "no token printed: \(elsewhere.stdoutText)")
    }
}
