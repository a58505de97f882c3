import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyRegistration
import LatchkeyTestSupport
import Testing

/// `register` telling the truth and leaving a usable state after any stop (issue 31 §1), against
/// the scripted provider, whose `/token` checks each client assertion against the keys it holds
/// for the client at that moment: "the profile still signs in" is a refresh the provider accepted.
extension RegisterProcessTests {
    /// A session for the registered profile, as `login` leaves it, with a refresh token the
    /// scripted provider accepts (it checks only the client's assertion).
    static func signIn(_ state: String, _ idp: RegistrationIdP, keySource: KeySource = .machine) throws {
        let profile = try Self.profile(state)
        let clientID = try #require(profile["client_id"]?.stringValue)
        var metadata = ProviderMetadata(issuer: idp.issuer)
        metadata.tokenEndpoint = idp.issuer + "/token"
        metadata.revocationEndpoint = idp.issuer + "/revoke"
        let now = Timestamp.now()
        let token = Token(
            accessToken: "access-token-1", tokenType: "Bearer", refreshToken: "refresh-token-1",
            expiresAt: now.addingTimeInterval(3600), scope: "offline_access")
        try EncryptedFileTokenStore(stateDirectory: state, profile: "default", keySource: keySource)
            .save(
                StoredSession(
                    profile: "default", issuer: idp.issuer, clientID: clientID, token: token,
                    metadata: metadata, createdAt: now, updatedAt: now))
    }

    /// `latchkey refresh` succeeds: the provider accepted the profile's client assertion.
    static func refreshes(_ cli: LatchkeyCommand, _ idp: RegistrationIdP, _ label: String) throws {
        let refreshed = try cli.run(["refresh"])
        let last = try idp.log().last { $0["path"] == "/token" }
        #expect(refreshed.exitCode == 0, "\(label): the profile no longer signs in: \(refreshed) \(String(describing: last))")
        #expect(last?["status"] == .integer(200), "\(label): \(String(describing: last))")
    }

    static func kill(_ state: String, at point: String, _ arguments: [String]) throws -> ProcessResult {
        let killer = try LatchkeyCommand(stateDirectory: state, extraEnvironment: ["LATCHKEY_TEST_KILL_AT": point])
        return try killer.run(arguments)
    }

    /// Files the state folder holds besides locks and the machine key.
    static func stateFiles(_ state: String) -> [String] {
        filesUnder(state).filter { !$0.hasSuffix(".lock") && $0 != "machine.key" }
    }

    // MARK: - --delete

    @Test func aRefusedDeleteExitsSevenAndKeepsEveryFile() throws {
        try Self.withProvider("delete-refused") { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            let before = Self.stateFiles(state)
            for run in 1...2 {
                let deleted = try cli.run(["--json", "register", "--delete"])
                #expect(deleted.exitCode == 7, "run \(run): a 403 on DELETE is no deletion: \(deleted)")
                #expect(!deleted.stdoutText.contains("deregistered"), "run \(run)")
                #expect(Self.stateFiles(state) == before, "run \(run): \(Self.stateFiles(state))")
                #expect(try Self.providerKids(cli).count == 1, "run \(run): the registration is still readable")
            }
        }
    }

    @Test func aDeleteFinishesFromARecordWithoutAProfile() throws {
        try Self.withProvider { idp, cli, state in
            let killed = try Self.kill(
                state, at: "create-record",
                ["register", "--issuer", idp.issuer, "--initial-access-token-file", idp.tokenPath])
            #expect(killed.terminatingSignal == SIGKILL, "\(killed)")
            #expect(!PackagePaths.exists(state + "/profiles/default.json"))
            let deleted = try cli.run(["--json", "register", "--delete"])
            #expect(deleted.exitCode == 0, "\(deleted)")
            #expect(try idp.requests("DELETE").map { $0["status"] } == [.integer(204)], "the client is deleted at the provider")
            #expect(Self.stateFiles(state).isEmpty, "\(Self.stateFiles(state))")
        }
    }

    @Test func aRerunFinishesFromARecordWithoutAProfile() throws {
        try Self.withProvider { idp, cli, state in
            let killed = try Self.kill(
                state, at: "create-record",
                ["register", "--issuer", idp.issuer, "--initial-access-token-file", idp.tokenPath])
            #expect(killed.terminatingSignal == SIGKILL, "\(killed)")
            let rerun = try Self.register(cli, idp)
            #expect(rerun.exitCode == 0, "\(rerun)")
            #expect(try idp.requests("POST").filter { $0["path"] == "/register" }.count == 1, "no second client")
            let clientID = try Self.profile(state)["client_id"]?.stringValue
            let event = try JSONParser().parseObject(Array(rerun.stdoutText.utf8))
            #expect(event["client_id"]?.stringValue == clientID && clientID != nil)
            try Self.profileKeyIsRegistered(cli, state, "finished")
            try Self.signIn(state, idp)
            try Self.refreshes(cli, idp, "finished")
        }
    }

    // MARK: - --force

    @Test(
        "a stopped or failed --force leaves the old registration or the new one",
        arguments: ["create-record", "create-profile"])
    func stoppedForce(point: String) throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            try Self.signIn(state, idp)
            let old = try #require(try Self.profile(state)["client_id"]?.stringValue)
            let killed = try Self.kill(
                state, at: point,
                [
                    "register", "--force", "--issuer", idp.issuer,
                    "--initial-access-token-file", idp.tokenPath
                ])
            #expect(killed.terminatingSignal == SIGKILL, "\(point): \(killed)")
            let now = try #require(try Self.profile(state)["client_id"]?.stringValue)
            let shown = try cli.run(["register", "--show"])
            #expect(shown.exitCode == 0, "\(point): \(shown)")
            let record = try JSONParser().parseObject(Array(shown.stdoutText.utf8))
            #expect(record["client_id"]?.stringValue == now, "\(point): the record and the profile name one client")
            try Self.profileKeyIsRegistered(cli, state, point)
            if now == old { try Self.refreshes(cli, idp, point + ": the old state") }
            // From there, deletion cleans up everything this program made.
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
            #expect(Self.stateFiles(state).isEmpty, "\(point): \(Self.stateFiles(state))")
        }
    }

    @Test func aFailedForceKeepsTheOldRegistration() throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            try Self.signIn(state, idp)
            let before = Self.stateFiles(state).map { ($0, fileBytes(state + "/" + $0)) }
            let failer = try LatchkeyCommand(stateDirectory: state, extraEnvironment: ["LATCHKEY_TEST_FAIL_AT": "create-record"])
            let failed = try failer.run(["register", "--force", "--issuer", idp.issuer, "--initial-access-token-file", idp.tokenPath])
            #expect(failed.exitCode == 9, "\(failed)")
            let after = Self.stateFiles(state)
            #expect(after == before.map(\.0), "only what this run made is removed: \(after)")
            for (file, bytes) in before where !file.hasSuffix(".tokens") {
                #expect(fileBytes(state + "/" + file) == bytes, "\(file) changed")
            }
            try Self.profileKeyIsRegistered(cli, state, "after a failed --force")
            try Self.refreshes(cli, idp, "after a failed --force")
        }
    }

    // MARK: - --rotate-key

    @Test(
        "SIGKILL at each step of --rotate-key, twice in a row: the profile still signs in",
        arguments: ["rotate-new-key", "rotate-both-keys", "rotate-profile", "rotate-old-key-dropped"])
    func killTwiceDuringRotation(point: String) throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            try Self.signIn(state, idp)
            try Self.refreshes(cli, idp, "registered")
            for attempt in 1...2 {
                let killed = try Self.kill(state, at: point, ["register", "--rotate-key"])
                #expect(killed.terminatingSignal == SIGKILL, "\(point) #\(attempt): \(killed)")
                try Self.profileKeyIsRegistered(cli, state, "\(point) #\(attempt)")
                try Self.refreshes(cli, idp, "\(point) #\(attempt)")
            }
            let again = try cli.run(["register", "--rotate-key"])
            #expect(again.exitCode == 0, "\(point): \(again)")
            try Self.refreshes(cli, idp, point + " then rotated")
            let kid = try Self.profile(state)["client_assertion"]?["kid"]?.stringValue
            #expect(try Self.providerKids(cli) == [kid].compactMap { $0 }, "\(point): the provider holds the profile's key only")
            let keyFile = try #require(try Self.profile(state)["client_key_file"]?.stringValue)
            #expect(filesUnder(state + "/keys").map { state + "/keys/" + $0 } == [keyFile], "\(point): no key left behind")
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
            #expect(Self.stateFiles(state).isEmpty, "\(point): \(Self.stateFiles(state))")
        }
    }

    @Test func aRotatedKeyNeverReusesAFileNameOfAnotherProfile() throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            #expect(try cli.run(["register", "--rotate-key"]).exitCode == 0)
            let path = try #require(try Self.profile(state)["client_key_file"]?.stringValue)
            let name = String(path.split(separator: "/").last ?? "")
            // keys/NAME.pem is profile NAME's; any name a profile can have is taken.
            #expect(!EncryptedFileTokenStore.isValidProfileName(String(name.dropLast(4))), "\(name)")
        }
    }

    // MARK: - A registration access token rotated on PUT

    @Test func aRegistrationTokenRotatedOnPutIsKept() throws {
        try Self.withProvider("rotate-token") { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            try Self.signIn(state, idp)
            let rotated = try cli.run(["register", "--rotate-key"])
            #expect(rotated.exitCode == 0, "\(rotated)")
            try Self.refreshes(cli, idp, "rotated")
            #expect(try Self.providerKids(cli).count == 1)
            let deleted = try cli.run(["register", "--delete"])
            #expect(deleted.exitCode == 0, "\(deleted)")
            #expect(try idp.requests("DELETE").map { $0["status"] } == [.integer(204)])
        }
        try Self.withProvider("rotate-token,second-put-fails") { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            try Self.signIn(state, idp)
            let failed = try cli.run(["register", "--rotate-key"])
            #expect(failed.exitCode == 7, "\(failed)")
            // The token the first PUT returned was saved before the second PUT.
            try Self.profileKeyIsRegistered(cli, state, "half rotated")
            try Self.refreshes(cli, idp, "half rotated")
            let again = try cli.run(["register", "--rotate-key"])
            #expect(again.exitCode == 0, "\(again)")
            try Self.refreshes(cli, idp, "rotated")
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
        }
    }

    // MARK: - Generated keys

    @Test func everyGeneratedKeyGoesOnDeleteAndABroughtKeyStays() throws {
        try Self.withProvider { idp, cli, state in
            let key = cli.stateDirectory + "-own.pem"
            #expect(FileText.write(PEMFixtures.p256PKCS8, to: key, mode: 0o600))
            defer { unlink(key) }
            #expect(try Self.register(cli, idp, ["--client-key-file", key]).exitCode == 0)
            try Self.signIn(state, idp)
            let rotated = try cli.run(["register", "--rotate-key"])
            #expect(rotated.exitCode == 0, "\(rotated)")
            try Self.refreshes(cli, idp, "rotated off a brought key")
            #expect(filesUnder(state + "/keys").count == 1)
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
            #expect(Self.stateFiles(state).isEmpty, "a generated key is left: \(Self.stateFiles(state))")
            #expect(PackagePaths.exists(key), "a key the person brought is theirs to delete")
        }
    }

    @Test func aGeneratedKeyIsSealedUnderTheProfilesKeySource() throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            let sealed = fileBytes(state + "/keys/default.pem")
            #expect(
                Array(sealed.prefix(5)) == Array("LKTF\u{1}".utf8) && sealed.count > 5 && sealed[5] == 1,
                "a token-file container under the machine key: \(String(decoding: sealed.prefix(40), as: UTF8.self))")
            #expect(!containsBytes(sealed, "PRIVATE KEY"), "the generated key is plaintext PEM")
            try Self.signIn(state, idp)
            try Self.refreshes(cli, idp, "a sealed key signs")
            #expect(try cli.run(["register", "--rotate-key"]).exitCode == 0)
            let rotated = try #require(try Self.profile(state)["client_key_file"]?.stringValue)
            #expect(!containsBytes(fileBytes(rotated), "PRIVATE KEY"))
            try Self.refreshes(cli, idp, "a sealed rotated key signs")
        }
        try Self.withProvider { idp, cli, state in
            let keyFile = cli.stateDirectory + "-source.key"
            #expect(FileText.write(String(repeating: "k", count: 48), to: keyFile, mode: 0o600))
            defer { unlink(keyFile) }
            let created = try Self.register(cli, idp, ["--key-source", "file:" + keyFile])
            #expect(created.exitCode == 0, "\(created)")
            #expect(try Self.profile(state)["key_source"] == .string("file:" + keyFile))
            let sealed = fileBytes(state + "/keys/default.pem")
            #expect(sealed.count > 5 && sealed[5] == 4, "sealed under the profile's key file")
            try Self.signIn(state, idp, keySource: .file(path: keyFile))
            try Self.refreshes(cli, idp, "a key sealed under file:PATH signs")
            // Only the key source's secret opens it.
            let key = ProfileClientKeyFile(
                path: state + "/keys/default.pem",
                store: EncryptedFileTokenStore(stateDirectory: state, profile: "default", keySource: .file(path: keyFile)))
            #expect(String(decoding: try key.privateKeyPEM().bytes, as: UTF8.self).hasPrefix("-----BEGIN"))
            #expect(throws: LatchkeyError.self) {
                _ = try ProfileClientKeyFile(
                    path: state + "/keys/default.pem",
                    store: EncryptedFileTokenStore(stateDirectory: state, profile: "default")
                ).privateKeyPEM()
            }
            #expect(FileText.write(String(repeating: "x", count: 48), to: keyFile, mode: 0o600))
            #expect(throws: LatchkeyError.self) { _ = try key.privateKeyPEM() }
        }
    }

    // MARK: - Records and profile names

    @Test func aProfileNamedLikeARecordCannotReachIt() throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            _ = try cli.run(["--profile", "default.registration", "logout"])
            #expect(try Self.providerKids(cli).count == 1, "the registration outlives another profile's logout")
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
        }
    }

    @Test func aRecordAtTheOldNameIsReadMovedAndNeverTakenForASession() throws {
        try Self.withProvider { idp, cli, state in
            #expect(try Self.register(cli, idp).exitCode == 0)
            // The layout of earlier releases: `<state>/NAME.registration.tokens`, header profile `NAME.registration`.
            let current = try #require(try RegistrationStore(stateDirectory: state, profile: "default").load())
            try RegistrationStore(stateDirectory: state, profile: "default").delete()
            var holder = StoredSession(
                profile: "default.registration", issuer: idp.issuer, clientID: current.registration.clientID,
                token: Token(accessToken: "", tokenType: "registration"),
                metadata: ProviderMetadata(issuer: idp.issuer), createdAt: .now(), updatedAt: .now())
            holder.registration = current.json
            try EncryptedFileTokenStore(stateDirectory: state, profile: "default.registration").save(holder)
            let old = state + "/default.registration.tokens"
            #expect(PackagePaths.exists(old))

            let logout = try cli.run(["--profile", "default.registration", "logout"])
            #expect(logout.exitCode == 9, "the session store refuses a registration record: \(logout)")
            #expect(PackagePaths.exists(old), "logout of profile default.registration deleted default's registration")

            #expect(try Self.providerKids(cli).count == 1, "the old record is read")
            #expect(!PackagePaths.exists(old), "and moved to the records' own name")
            #expect(try cli.run(["register", "--delete"]).exitCode == 0)
            #expect(Self.stateFiles(state).isEmpty, "\(Self.stateFiles(state))")
        }
    }

    // MARK: - Server text

    @Test func aClientIDOutsideVSCHARIsRefused() throws {
        try Self.withProvider("hostile-client-id") { idp, cli, state in
            for json in [false, true] {
                let result = try cli.run(
                    (json ? ["--json"] : []) + [
                        "register", "--issuer", idp.issuer,
                        "--initial-access-token-file", idp.tokenPath
                    ])
                #expect(result.exitCode == 7, "\(result)")
                #expect(!(result.stdoutText + result.stderrText).contains("\u{1B}"), "\(result)")
                #expect(result.stderrText.contains("client_id") || result.stdoutText.contains("malformed_response"), "\(result)")
                #expect(Self.stateFiles(state).isEmpty, "\(Self.stateFiles(state))")
            }
        }
    }
}
