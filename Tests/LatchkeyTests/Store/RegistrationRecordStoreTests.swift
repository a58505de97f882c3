import Glibc
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

@testable import Latchkey
@testable import LatchkeyRegistration

/// The registration record's file: its own namespace, the earlier name still read, the session
/// store refusing a record, and the record's members (issue 31 §1).
@Suite struct RegistrationRecordStoreTests {
    static func record(_ clientID: String = "dyn-1") -> RegistrationRecord {
        RegistrationRecord(
            dialect: .rfc7591,
            registration: ClientRegistration(
                clientID: clientID, registrationAccessToken: "rat-1", registrationClientURI: "https://idp.example/register/" + clientID),
            keyFile: "/state/keys/k.pem", keyGenerated: true)
    }

    @Test func theRecordsMembersRoundTrip() throws {
        var record = Self.record()
        record.generatedKeys.append("/state/keys/k@abc.pem")
        record.deleting = true
        record.pending = true
        record.profileJSON = JSONObject([("issuer", "https://idp.example"), ("client_id", "dyn-1")])
        record.previous = Self.record("dyn-0")
        let back = try RegistrationRecord(json: record.json)
        #expect(back == record)
        #expect(back.previous?.registration.clientID == "dyn-0" && back.keyGenerated)
        // A record of an earlier release: only `key_generated`.
        var old = Self.record().json
        old["generated_keys"] = nil
        let earlier = try RegistrationRecord(json: old)
        #expect(earlier.generatedKeys == ["/state/keys/k.pem"] && !earlier.tracksGeneratedKeys)
    }

    @Test func aClientIDOrTokenOutsideVSCHARIsAMalformedAnswer() throws {
        for (member, value) in [
            ("client_id", "dyn-\u{1B}]0;x\u{07}"), ("client_id", "dyn-\u{9B}2J"),
            ("registration_access_token", "rat\r\nX-Injected: 1")
        ] {
            var json = JSONObject([("client_id", "dyn-1")])
            json[member] = .string(value)
            #expect(throws: RegistrationError.malformedAnswer(operation: .create, reason: member + " is not VSCHAR")) {
                _ = try ClientRegistration(json: json, dialect: .rfc7591, operation: .create)
            }
        }
        #expect(
            try ClientRegistration(json: JSONObject([("client_id", "a b~!")]), dialect: .rfc7591, operation: .create).clientID == "a b~!")
    }

    @Test func aRecordLivesWhereNoProfileReachesAndTheEarlierNameIsMoved() throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-registration-store-")
        defer { dir.remove() }
        let state = dir.path + "/state"
        let store = RegistrationStore(stateDirectory: state, profile: "k")
        try store.save(Self.record(), issuer: "https://idp.example", at: .now())
        #expect(store.path == state + "/k@registration.tokens")
        #expect(!EncryptedFileTokenStore.isValidProfileName("k@registration"))
        #expect(try store.load()?.issuer == "https://idp.example")

        // The earlier layout: profile `k.registration`'s token file.
        try store.delete()
        var holder = StoredSession(
            profile: "k.registration", issuer: "https://idp.example", clientID: "dyn-1",
            token: Token(accessToken: "", tokenType: "registration"),
            metadata: ProviderMetadata(issuer: "https://idp.example"), createdAt: .now(), updatedAt: .now())
        var legacy = Self.record()
        legacy.keyFile = state + "/keys/k.rotated.pem"
        legacy.generatedKeys = []
        legacy.tracksGeneratedKeys = false
        holder.registration = legacy.json
        try EncryptedFileTokenStore(stateDirectory: state, profile: "k.registration").save(holder)
        let session = EncryptedFileTokenStore(stateDirectory: state, profile: "k.registration")
        #expect(throws: TokenStoreError.corrupt(path: session.tokenFilePath, reason: EncryptedFileTokenStore.registrationRecordReason)) {
            _ = try session.load()
        }
        #expect(throws: TokenStoreError.self) { try session.delete() }
        #expect(throws: TokenStoreError.self) { try session.save(StoredSessionFixtureless.session("k.registration")) }
        #expect(session.hasTokenFile, "a session store neither deleted nor replaced the record")

        let moved = try #require(try store.load())
        #expect(moved.registration.clientID == "dyn-1" && moved.issuer == "https://idp.example")
        #expect(moved.generatedKeys == [state + "/keys/k.rotated.pem"], "a rotation's key of an earlier release is tracked")
        #expect(!session.hasTokenFile && PackagePaths.exists(store.path))
        // Now profile `k.registration` is an ordinary profile again.
        try session.save(StoredSessionFixtureless.session("k.registration"))
        #expect(try session.load()?.clientID == "cli")
        #expect(try store.load()?.registration.clientID == "dyn-1", "its session is not a record")
    }
}

enum StoredSessionFixtureless {
    static func session(_ profile: String) -> StoredSession {
        StoredSession(
            profile: profile, issuer: "https://idp.example", clientID: "cli",
            token: Token(accessToken: "at", tokenType: "Bearer"), metadata: ProviderMetadata(issuer: "https://idp.example"),
            createdAt: .now(), updatedAt: .now())
    }
}
