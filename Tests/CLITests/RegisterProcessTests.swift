import Glibc
import Latchkey
import LatchkeyJOSE
import LatchkeyRegistration
import LatchkeyTestSupport
import Testing

/// One running `Tests/Harness/registration_idp.py`: a strict RFC 7591 / RFC 7592 provider.
final class RegistrationIdP: Sendable {
    let port: Int
    let logPath: String
    let tokenPath: String
    let provisioningToken: String
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    var issuer: String { "http://127.0.0.1:\(port)" }

    init(scenario: String = "ok") throws {
        directory = try TemporaryDirectory(prefix: "latchkey-registration-")
        logPath = directory.path + "/requests.jsonl"
        tokenPath = directory.path + "/provisioning"
        provisioningToken = "iat-" + String(UInt64.random(in: 1...UInt64.max), radix: 36) + "-provisioning-secret"
        #expect(FileText.write(provisioningToken + "\n", to: tokenPath, mode: 0o600))
        let python = HostEnvironment.current["LATCHKEY_IT_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        guard PackagePaths.exists(python) else { throw try Requirement.missing("python3 not found at \(python)") }
        process = try ChildProcess.spawn(
            python,
            [
                "-u", PackagePaths.harness() + "/registration_idp.py", "--scenario", scenario,
                "--log", logPath, "--token-file", tokenPath
            ], environment: HostEnvironment.current)
        guard let line = process.nextLine(timeout: .seconds(20)), let port = Int(line) else {
            let result = process.waitForExit(timeout: .seconds(2))
            directory.remove()
            throw try Requirement.missing("registration_idp.py did not start: \(result.stderrText.suffix(500))")
        }
        self.port = port
    }

    /// The request log, parsed.
    func log() throws -> [JSONObject] {
        try (FileText.read(logPath) ?? "").split(separator: "\n").map { try JSONParser().parseObject(Array($0.utf8)) }
    }

    func requests(_ method: String) throws -> [JSONObject] { try log().filter { $0["method"]?.stringValue == method } }

    func stop() {
        process.terminate()
        directory.remove()
    }
}

/// Every file under `path`, recursively (path relative to it).
func filesUnder(_ path: String, prefix: String = "") -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var out: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name == "." || name == ".." { continue }
        var info = stat()
        guard lstat(path + "/" + name, &info) == 0 else { continue }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            out += filesUnder(path + "/" + name, prefix: prefix + name + "/")
        } else {
            out.append(prefix + name)
        }
    }
    return out.sorted()
}

func fileBytes(_ path: String) -> [UInt8] {
    guard let text = FileText.read(path) else { return [] }
    return Array(text.utf8)
}

func containsBytes(_ haystack: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard !n.isEmpty, haystack.count >= n.count else { return false }
    for i in 0...(haystack.count - n.count) where haystack[i] == n[0] && Array(haystack[i..<i + n.count]) == n { return true }
    return false
}

/// `latchkey register` against the strict scripted provider (cli.md "register"): the RFC 7591
/// dialect, every error of the contract, secrets kept out of every file but the encrypted one,
/// and rotation and deletion that survive SIGKILL at each write.
@Suite("latchkey register against a strict RFC 7591 provider", .serialized)
struct RegisterProcessTests {
    static func withProvider(
        _ scenario: String = "ok", _ env: [String: String] = [:],
        _ body: (RegistrationIdP, LatchkeyCommand, String) throws -> Void
    ) throws {
        let idp = try RegistrationIdP(scenario: scenario)
        defer { idp.stop() }
        try withCLI(env) { cli, _ in try body(idp, cli, cli.stateDirectory) }
    }

    static func register(_ cli: LatchkeyCommand, _ idp: RegistrationIdP, _ extra: [String] = []) throws -> ProcessResult {
        try cli.run(["--json", "register", "--issuer", idp.issuer, "--initial-access-token-file", idp.tokenPath] + extra)
    }

    static func profile(_ state: String) throws -> JSONObject {
        try JSONParser().parseObject(fileBytes(state + "/profiles/default.json"))
    }

    /// The kids of the key set the provider holds now (RFC 7592 GET through `register --show`).
    static func providerKids(_ cli: LatchkeyCommand) throws -> [String] {
        let show = try cli.run(["register", "--show"])
        #expect(show.exitCode == 0, "\(show)")
        let object = try JSONParser().parseObject(Array(show.stdoutText.utf8))
        return object["jwks"]?["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue } ?? []
    }

    @Test func createsShowsRotatesAndDeletesInTheRFCDialect() throws {
        try Self.withProvider { idp, cli, state in
            let created = try Self.register(cli, idp, ["--verbose"])
            #expect(created.exitCode == 0, "\(created)")
            let event = try JSONParser().parseObject(Array(created.stdoutText.utf8))
            #expect(event["event"] == "registered" && event["auth_method"] == "private_key_jwt" && event["management"] == .bool(true))
            let thumbprint = try #require(event["key_thumbprint"]?.stringValue)
            let clientID = try #require(event["client_id"]?.stringValue)

            // What went on the wire: the RFC 8628 URN, the key with its thumbprint as kid, the token as Bearer.
            let post = try #require(try idp.requests("POST").first)
            #expect(post["status"] == .integer(201))
            let body = try #require(post["body"]?.objectValue)
            #expect(body["grant_types"] == .array(["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"]))
            #expect(body["token_endpoint_auth_method"] == "private_key_jwt" && body["token_endpoint_auth_signing_alg"] == "ES256")
            #expect(body["client_confidential"] == nil && body["redirect_uris"] == nil)
            let key = try #require(body["jwks"]?["keys"]?.arrayValue?.first?.objectValue)
            #expect(key["kid"] == .string(thumbprint) && key["d"] == nil)
            #expect(try JWK(json: key).thumbprint() == thumbprint, "kid is the RFC 7638 thumbprint")

            // The profile: ready for login, no secret.
            let profile = try Self.profile(state)
            #expect(profile["client_id"] == .string(clientID) && profile["auth_method"] == "private_key_jwt")
            #expect(profile["client_key_file"] == .string(state + "/keys/default.pem"))
            var info = stat()
            #expect(stat(state + "/keys/default.pem", &info) == 0 && info.st_mode & 0o777 == 0o600)

            // --show: the stored registration, the registration token redacted.
            #expect(try Self.providerKids(cli) == [thumbprint])

            let rotated = try cli.run(["--json", "register", "--rotate-key"])
            #expect(rotated.exitCode == 0, "\(rotated)")
            let rotatedEvent = try JSONParser().parseObject(Array(rotated.stdoutText.utf8))
            let newThumbprint = try #require(rotatedEvent["key_thumbprint"]?.stringValue)
            #expect(rotatedEvent["event"] == "key_rotated" && newThumbprint != thumbprint)
            let puts = try idp.requests("PUT")
            #expect(puts.count == 2 && puts.allSatisfy { $0["body"]?["client_id"] == .string(clientID) && $0["status"] == .integer(200) })
            #expect(puts.first?["body"]?["jwks"]?["keys"]?.arrayValue?.count == 2, "both keys while the profile switches")
            #expect(try Self.providerKids(cli) == [newThumbprint])
            let after = try Self.profile(state)
            #expect(after["client_assertion"]?["kid"] == .string(newThumbprint))
            let rotatedKey = try #require(after["client_key_file"]?.stringValue)
            #expect(rotatedKey != state + "/keys/default.pem")
            #expect(filesUnder(state + "/keys").map { state + "/keys/" + $0 } == [rotatedKey], "the old key is deleted")

            let deleted = try cli.run(["--json", "register", "--delete"])
            #expect(deleted.exitCode == 0, "\(deleted)")
            #expect(deleted.stdoutText == "{\"event\":\"deregistered\"}\n")
            #expect(try idp.requests("DELETE").map { $0["status"] } == [.integer(204)])
            let left = filesUnder(state).filter { !$0.hasSuffix(".lock") && $0 != "machine.key" }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test func noSecretInTheProfileTheVerboseLogOrAnyFileButTheEncryptedOne() throws {
        try Self.withProvider { idp, cli, state in
            let created = try Self.register(cli, idp, ["--verbose"])
            #expect(created.exitCode == 0, "\(created)")
            let show = try cli.run(["--verbose", "register", "--show"])
            let rotate = try cli.run(["--verbose", "register", "--rotate-key"])
            #expect(show.exitCode == 0 && rotate.exitCode == 0, "\(show) \(rotate)")
            // The registration access token, as the provider issued it (GET answers carry none: read it from a second create).
            let keyFile = try #require(try Self.profile(state)["client_key_file"]?.stringValue)
            let pem = try ProfileClientKeyFile(path: keyFile, store: EncryptedFileTokenStore(stateDirectory: state, profile: "default"))
                .privateKeyPEM()
            let keyPEM = String(decoding: pem.bytes, as: UTF8.self)
            let keyBody = keyPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? "missing"
            #expect(keyBody.count > 40)
            let outputs = [created, show, rotate].map { $0.stdoutText + $0.stderrText }.joined()
            #expect(outputs.contains("Authorization: [redacted]") || outputs.contains("[redacted]"))
            // The key files included: a generated key is sealed.
            for file in filesUnder(state) {
                let bytes = fileBytes(state + "/" + file)
                #expect(!containsBytes(bytes, idp.provisioningToken), "\(file) holds the provisioning token")
                #expect(!containsBytes(bytes, "rat-"), "\(file) holds the registration access token")
                #expect(!containsBytes(bytes, keyBody), "\(file) holds private key material")
            }
            #expect(!outputs.contains(idp.provisioningToken) && !outputs.contains("rat-") && !outputs.contains(keyBody))
            #expect(!(FileText.read(state + "/profiles/default.json") ?? "").contains("registration"))
        }
    }

    @Test(
        "every refusal of the contract is exit 7 and leaves nothing",
        arguments: [
            ("refuse-token", "the provisioning token was refused"),
            ("error:invalid_redirect_uri", "invalid_redirect_uri"),
            ("error:invalid_client_metadata", "invalid_client_metadata"),
            ("error:invalid_software_statement", "invalid_software_statement"),
            ("error:unapproved_software_statement", "unapproved_software_statement"),
            ("no-client-id", "no client_id"),
            ("foreign-uri", "is not on the issuer's origin"),
            ("jwks-changed", "another jwks"),
            ("no-registration-endpoint", "no registration_endpoint")
        ])
    func refusals(scenario: String, wording: String) throws {
        try Self.withProvider(scenario) { idp, cli, state in
            let result = try Self.register(cli, idp)
            #expect(result.exitCode == 7, "\(scenario): \(result)")
            let first = result.stderrText.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.contains(wording), "\(scenario): \(first)")
            #expect(!result.stderrText.contains("\u{1B}"), "the server's description is sanitised")
            #expect(!result.stderrText.contains(idp.provisioningToken))
            #expect(filesUnder(state).isEmpty, "\(scenario) left \(filesUnder(state))")
        }
    }

    @Test func ps256GeneratesAnRSAKeyAndAPublicClientSendsNoKey() throws {
        try Self.withProvider { idp, cli, state in
            let rsa = try Self.register(cli, idp, ["--key-alg", "PS256"])
            #expect(rsa.exitCode == 0, "\(rsa)")
            let key = try #require(try idp.requests("POST").last?["body"]?["jwks"]?["keys"]?.arrayValue?.first?.objectValue)
            #expect(key["kty"] == "RSA" && key["alg"] == "PS256" && key["d"] == nil)
            #expect((key["n"]?.stringValue?.count ?? 0) >= 342, "a 2048-bit modulus")
            #expect(try Self.profile(state)["client_assertion"]?["alg"] == "PS256")
        }
        try Self.withProvider { idp, cli, state in
            let statement = cli.stateDirectory + "-statement.jwt"
            #expect(FileText.write("eyJhbGciOiJub25lIn0.eyJzb2Z0d2FyZV9pZCI6Imtpb3NrIn0.\n", to: statement))
            defer { unlink(statement) }
            let open = try Self.register(
                cli, idp,
                [
                    "--auth-method", "none", "--software-statement-file", statement,
                    "--client-name", "kiosk 7"
                ])
            #expect(open.exitCode == 0, "\(open)")
            let event = try JSONParser().parseObject(Array(open.stdoutText.utf8))
            #expect(event["auth_method"] == "none" && event["key_thumbprint"] == .null)
            let body = try #require(try idp.requests("POST").last?["body"]?.objectValue)
            #expect(body["jwks"] == nil && body["token_endpoint_auth_method"] == "none" && body["client_name"] == "kiosk 7")
            #expect(body["software_statement"] == "eyJhbGciOiJub25lIn0.eyJzb2Z0d2FyZV9pZCI6Imtpb3NrIn0.")
            #expect(filesUnder(state + "/keys").isEmpty, "a public client has no key")
        }
    }

    @Test func anExistingKeyIsRegisteredAndKeptOnDelete() throws {
        try Self.withProvider { idp, cli, state in
            let key = cli.stateDirectory + "-own.pem"
            #expect(FileText.write(PEMFixtures.p256PKCS8, to: key, mode: 0o600))
            defer { unlink(key) }
            let created = try Self.register(cli, idp, ["--client-key-file", key])
            #expect(created.exitCode == 0, "\(created)")
            #expect(try Self.profile(state)["client_key_file"] == .string(key))
            #expect(filesUnder(state + "/keys").isEmpty)
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
            #expect(PackagePaths.exists(key), "a key the person brought is theirs to delete")
        }
        try Self.withProvider { idp, cli, state in
            let key = cli.stateDirectory + "-open.pem"
            #expect(FileText.write(PEMFixtures.p256PKCS8, to: key, mode: 0o644))
            _ = chmod(key, 0o644)
            defer { unlink(key) }
            let refused = try Self.register(cli, idp, ["--client-key-file", key])
            #expect(refused.exitCode == 9, "\(refused)")
            #expect(try idp.requests("POST").isEmpty, "nothing is registered with an unsafe key")
            #expect(filesUnder(state).isEmpty)
        }
        try Self.withProvider { idp, cli, state in
            let token = cli.stateDirectory + "-open.token"
            #expect(FileText.write(idp.provisioningToken, to: token, mode: 0o644))
            _ = chmod(token, 0o644)
            defer { unlink(token) }
            let refused = try cli.run(["register", "--issuer", idp.issuer, "--initial-access-token-file", token])
            #expect(refused.exitCode == 9, "a provisioning token readable by others is refused: \(refused)")
            #expect(filesUnder(state).isEmpty)
        }
    }

    @Test func aRegisteredProfileIsUsageErrorUnlessForced() throws {
        try Self.withProvider { idp, cli, _ in
            #expect(try Self.register(cli, idp).exitCode == 0)
            let again = try Self.register(cli, idp)
            #expect(again.exitCode == 2, "\(again)")
            let forced = try Self.register(cli, idp, ["--force"])
            #expect(forced.exitCode == 0, "\(forced)")
        }
    }

    @Test func aFailedPutChangesNothing() throws {
        try Self.withProvider("put-fails") { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            let before = FileText.read(state + "/profiles/default.json")
            let key = FileText.read(state + "/keys/default.pem")
            let rotated = try cli.run(["register", "--rotate-key"])
            #expect(rotated.exitCode == 7, "\(rotated)")
            #expect(FileText.read(state + "/profiles/default.json") == before)
            #expect(FileText.read(state + "/keys/default.pem") == key)
            #expect(filesUnder(state + "/keys") == ["default.pem"])
        }
    }

    /// The key the profile signs with (its kid, and the thumbprint of its key file) is one the provider holds.
    static func profileKeyIsRegistered(_ cli: LatchkeyCommand, _ state: String, _ label: String) throws {
        let profile = try Self.profile(state)
        let kid = try #require(profile["client_assertion"]?["kid"]?.stringValue, "\(label)")
        let path = try #require(profile["client_key_file"]?.stringValue, "\(label)")
        #expect(PackagePaths.exists(path), "\(label): the profile's key file is gone")
        #expect(try Self.providerKids(cli).contains(kid), "\(label): the provider no longer holds the profile's key")
        let probe = try cli.run(["register", "--show"])
        #expect(probe.exitCode == 0, "\(label): \(probe)")
    }

    @Test(
        "SIGKILL at each write of --delete: the profile still works, or a rerun finishes",
        arguments: ["delete-revoked", "delete-marked", "delete-confirmed", "delete-profile"])
    func killDuringDeletion(point: String) throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            let killer = try LatchkeyCommand(stateDirectory: state, extraEnvironment: ["LATCHKEY_TEST_KILL_AT": point])
            let killed = try killer.run(["register", "--delete"])
            #expect(killed.terminatingSignal == SIGKILL, "\(point): \(killed)")
            let providerDeleted = try idp.requests("DELETE").contains { $0["status"] == .integer(204) }
            if !providerDeleted { try Self.profileKeyIsRegistered(cli, state, point) }
            let rerun = try cli.run(["register", "--delete"])
            #expect(rerun.exitCode == 0, "\(point): \(rerun)")
            let left = filesUnder(state).filter { !$0.hasSuffix(".lock") && $0 != "machine.key" }
            #expect(left.isEmpty, "\(point): \(left)")
        }
    }
}
