import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// OIDC Core §12.2 (an ID token from a refresh against the one from the original sign-in) and the
/// `nbf` check of the ID-token verifier.
@Suite struct RefreshedIDTokenTests {
    let clock = VirtualClock()
    static let client = TestIssuer.clientID
    static let twoAudiences: JSONValue = .array([.string(client), "api"])

    func verifier(_ idp: TestIssuer, skipExpiry: Bool = false) throws -> IDTokenVerifier {
        IDTokenVerifier(
            configuration: .init(
                issuer: TestIssuer.issuer, clientID: Self.client, allowedAlgorithms: [.es256],
                skipExpiryCheck: skipExpiry),
            keySet: try idp.keySet(), time: clock)
    }

    /// The claims stored from the original sign-in.
    func original(_ extra: [(String, JSONValue)] = []) throws -> JWTClaims {
        try JWTClaims(json: TestIssuer.claims(now: clock.now().addingTimeInterval(-3000), extra: extra))
    }

    /// A verified refreshed ID token issued now.
    func refreshed(_ idp: TestIssuer, _ extra: [(String, JSONValue)] = []) async throws -> VerifiedIDToken {
        try await verifier(idp).verify(try idp.sign(TestIssuer.claims(now: clock.now(), extra: extra)))
    }

    /// Expects `checkRefresh` to refuse with a §12.2 mismatch on `claim`.
    func expectMismatch(
        _ new: VerifiedIDToken, _ previous: JWTClaims, claim: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try IDTokenVerifier.checkRefresh(new, previous: previous)
            Issue.record("refreshed ID token accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.category == .verification, sourceLocation: sourceLocation)
            guard case .verification(.refreshMismatch(let got, _, _)) = error else {
                Issue.record("wrong error \(error)", sourceLocation: sourceLocation); return
            }
            #expect(got == claim, sourceLocation: sourceLocation)
        }
    }

    @Test func sameClaimsAreAccepted() async throws {
        let idp = try TestIssuer()
        let stable: [(String, JSONValue)] = [("aud", Self.twoAudiences), ("azp", .string(Self.client)), ("auth_time", 1_799_990_000)]
        try IDTokenVerifier.checkRefresh(try await refreshed(idp, stable + [("name", "Ada")]), previous: try original(stable))
    }

    // MARK: aud

    @Test func audienceIsComparedAsAListNotAsJoinedText() async throws {
        let idp = try TestIssuer()
        // ["device-client api"] and ["device-client", "api"] join to the same text but are different audiences.
        let previous = try original([("aud", .array([.string(Self.client + " api")]))])
        expectMismatch(try await refreshed(idp, [("aud", Self.twoAudiences), ("azp", .string(Self.client))]), previous, claim: "aud")
    }

    @Test func audienceIsASetSoOrderAndSpellingAsStringDoNotMatter() async throws {
        let idp = try TestIssuer()
        // RFC 7519 §4.1.3: `aud` names a set of recipients; a lone string is a one-element set.
        let reordered: JSONValue = .array(["api", .string(Self.client)])
        try IDTokenVerifier.checkRefresh(
            try await refreshed(idp, [("aud", reordered), ("azp", .string(Self.client))]),
            previous: try original([("aud", Self.twoAudiences), ("azp", .string(Self.client))]))
        try IDTokenVerifier.checkRefresh(
            try await refreshed(idp, [("aud", .array([.string(Self.client)]))]),
            previous: try original([("aud", .string(Self.client))]))
    }

    @Test func audienceThatGainsARecipientIsRefused() async throws {
        let idp = try TestIssuer()
        expectMismatch(try await refreshed(idp, [("aud", Self.twoAudiences), ("azp", .string(Self.client))]), try original(), claim: "aud")
    }

    // MARK: azp

    @Test func azpThatAppearsIsRefused() async throws {
        // §12.2: "if no azp Claim was present in the original ID Token, one MUST NOT be present in the new ID Token".
        let idp = try TestIssuer()
        expectMismatch(try await refreshed(idp, [("azp", .string(Self.client))]), try original(), claim: "azp")
    }

    @Test func azpThatDisappearsIsRefused() async throws {
        let idp = try TestIssuer()
        expectMismatch(try await refreshed(idp), try original([("azp", .string(Self.client))]), claim: "azp")
    }

    // MARK: iat

    @Test func anIatBeforeThePreviousOneIsAccepted() async throws {
        // §12.2: `iat` is the new token's issue time. A provider whose clock ran ahead when it issued the
        // previous token, and was then corrected, issues an earlier one; it is the same session.
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        try IDTokenVerifier.checkRefresh(
            try await refreshed(idp, [("iat", .integer(t - 120))]),
            previous: try original([("iat", .integer(t + 200))]))
    }

    // MARK: auth_time

    @Test func authTimeThatGoesBackIsRefused() async throws {
        // §12.2: auth_time is the time of the original authentication; one before it is another session's.
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        expectMismatch(
            try await refreshed(idp, [("auth_time", .integer(t - 7200))]),
            try original([("auth_time", .integer(t - 3600))]), claim: "auth_time")
    }

    @Test func authTimeMayBeOmittedOnRefresh() async throws {
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        try IDTokenVerifier.checkRefresh(try await refreshed(idp), previous: try original([("auth_time", .integer(t - 3600))]))
    }

    @Test func laterAuthTimeIsTolerated() async throws {
        // Keycloak reports the SSO session's latest authentication, and the acceptance suite's "rfc"
        // provider stamps auth_time with the refresh time: both are refreshes of the same session.
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        try IDTokenVerifier.checkRefresh(
            try await refreshed(idp, [("auth_time", .integer(t))]),
            previous: try original([("auth_time", .integer(t - 3600))]))
        try IDTokenVerifier.checkRefresh(try await refreshed(idp, [("auth_time", .integer(t))]), previous: try original())
    }

    @Test func authTimeOfTheWrongTypeIsMalformed() {
        #expect(throws: JOSEError.self) {
            try JWTClaims(json: TestIssuer.claims(now: clock.now(), extra: [("auth_time", "yesterday")]))
        }
    }

    // MARK: iat

    // MARK: nbf (§3.1.3.7 via RFC 7519 §4.1.5)

    @Test func notBeforeInTheFutureIsRefused() async throws {
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        let early = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("nbf", .integer(t + 120))]))
        let v = try verifier(idp)
        do {
            _ = try await v.verify(early)
            Issue.record("token used before its nbf was accepted")
        } catch {
            #expect(error.category == .verification)
            #expect(error.message.contains("nbf"), "\(error.message)")
        }
        // Within the 60 s leeway, and with the time checks skipped, it passes.
        _ = try await verifier(idp).verify(try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("nbf", .integer(t + 30))])))
        _ = try await verifier(idp, skipExpiry: true).verify(early)
    }

    @Test func notBeforeOfTheWrongTypeIsMalformed() async throws {
        let idp = try TestIssuer()
        let bad = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("nbf", "soon")]))
        await #expect(throws: LatchkeyError.self) { try await verifier(idp).verify(bad) }
    }

    // MARK: through a refresh

    @Test func refreshWhoseIDTokenGainsAnAzpFailsVerification() async throws {
        let idp = try TestIssuer()
        let now = clock.now()
        let newID = try idp.sign(TestIssuer.claims(now: now, extra: [("azp", .string(Self.client))]))
        let stored = StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: Self.client,
            token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now, idToken: "id-old"),
            subject: "user-1", idTokenClaimsJSON: #"{"iss":"https://idp.example","sub":"user-1","aud":"device-client","iat":1799990000}"#,
            metadata: testMetadata(), createdAt: now, updatedAt: now)
        let t = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(
                200, #"{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2","id_token":"\#(newID)"}"#)
        }
        let session = Session(
            configuration: testConfiguration(), store: MemoryTokenStore(stored), transport: t, time: clock,
            random: CountingRandom(), keySet: try idp.keySet())
        await expectError(category: .verification) { try await session.validToken() }
    }
}
