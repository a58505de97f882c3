import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite struct IDTokenVerifierTests {
    let clock = VirtualClock()

    func verifier(_ issuer: TestIssuer, _ configure: (inout IDTokenVerifier.Configuration) -> Void = { _ in }) throws -> IDTokenVerifier {
        var c = IDTokenVerifier.Configuration(issuer: TestIssuer.issuer, clientID: TestIssuer.clientID, allowedAlgorithms: [.es256, .rs256])
        configure(&c)
        return IDTokenVerifier(configuration: c, keySet: try issuer.keySet(), time: clock)
    }

    func expectVerification(
        _ token: String, _ v: IDTokenVerifier, nonce: String? = nil, accessToken: String? = nil,
        matches: (IDTokenError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        do {
            _ = try await v.verify(token, nonce: nonce, accessToken: accessToken)
            Issue.record("token accepted", sourceLocation: sourceLocation)
        } catch {
            guard case .verification(let e) = error else { Issue.record("wrong error \(error)", sourceLocation: sourceLocation); return }
            #expect(matches(e), "\(e)", sourceLocation: sourceLocation)
            #expect(error.category == .verification, sourceLocation: sourceLocation)
        }
    }

    @Test func validES256TokenVerifies() async throws {
        let idp = try TestIssuer()
        let token = try idp.sign(TestIssuer.claims(now: clock.now(), nonce: "n-1"))
        let verified = try await verifier(idp).verify(token, nonce: "n-1")
        #expect(verified.subject == "user-1")
        #expect(verified.algorithm == .es256)
    }

    @Test func wrongIssuer() async throws {
        let idp = try TestIssuer()
        let token = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("iss", "https://other.example")]))
        await expectVerification(token, try verifier(idp)) {
            if case .issuer = $0 { return true }; return false
        }
    }

    @Test func audienceMustContainClientID() async throws {
        let idp = try TestIssuer()
        let token = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("aud", "someone-else")]))
        await expectVerification(token, try verifier(idp)) {
            if case .audience = $0 { return true }; return false
        }
    }

    @Test func severalAudiencesNeedAzp() async throws {
        let idp = try TestIssuer()
        let multi: JSONValue = .array([.string(TestIssuer.clientID), "api"])
        let noAzp = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("aud", multi)]))
        await expectVerification(noAzp, try verifier(idp)) {
            if case .authorizedParty = $0 { return true }; return false
        }
        let wrongAzp = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("aud", multi), ("azp", "api")]))
        await expectVerification(wrongAzp, try verifier(idp)) {
            if case .authorizedParty = $0 { return true }; return false
        }
        let good = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("aud", multi), ("azp", .string(TestIssuer.clientID))]))
        _ = try await verifier(idp).verify(good)
    }

    @Test func expiryWithLeeway() async throws {
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        let justExpired = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("exp", .integer(t - 30)), ("iat", .integer(t - 600))]))
        _ = try await verifier(idp).verify(justExpired)  // within the 60 s leeway
        let expired = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("exp", .integer(t - 61)), ("iat", .integer(t - 600))]))
        await expectVerification(expired, try verifier(idp)) {
            if case .expired = $0 { return true }; return false
        }
        _ = try await verifier(idp) { $0.skipExpiryCheck = true }.verify(expired)
    }

    /// The shared boundary table (Tests/Support/TimeClaimBoundaries.swift), which `latchkey verify`
    /// runs too (VerifyProcessTests): one set of time rules for every entry point.
    @Test(arguments: TimeClaimBoundaries.cases, [IDTokenVerifier.TokenKind.idToken, .jwt])
    func timeClaimBoundaries(_ boundary: TimeClaimBoundaries.Case, kind: IDTokenVerifier.TokenKind) async throws {
        let idp = try TestIssuer()
        let now = Int64(clock.now().timeIntervalSince1970)
        let token = try idp.sign(
            TestIssuer.claims(now: clock.now(), extra: boundary.claims(now: now).map { ($0.name, .number($0.number)) }))
        let v = try verifier(idp) {
            $0.leeway = Double(boundary.leeway); $0.kind = kind
        }
        do {
            _ = try await v.verify(token)
            #expect(boundary.valid, "\(boundary): accepted")
        } catch {
            #expect(!boundary.valid, "\(boundary): \(error)")
            // Refused for its time claims, not for anything else.
            guard case .verification(let e) = error else { Issue.record("\(error)"); return }
            switch e {
            case .expired, .notYetValid, .issuedAt: break
            default: Issue.record("\(boundary): refused for \(e)")
            }
        }
    }

    /// A generic JWT (`latchkey verify`) must carry only what is checked; an ID token all of OIDC's.
    @Test func requiredClaimsByKind() async throws {
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        let bare = try idp.sign(JSONObject([("exp", .integer(t + 600))]))
        func outcome(_ token: String, _ configure: (inout IDTokenVerifier.Configuration) -> Void) async throws -> IDTokenError? {
            let v = try verifier(idp, configure)
            do { _ = try await v.verify(token); return nil } catch {
                guard case .verification(let e) = error else { Issue.record("\(error)"); return nil }
                return e
            }
        }
        let unchecked: (inout IDTokenVerifier.Configuration) -> Void = {
            $0.kind = .jwt; $0.skipIssuerCheck = true; $0.skipClientIDCheck = true
        }
        #expect(try await outcome(bare, unchecked) == nil)
        #expect(
            try await outcome(
                bare,
                {
                    $0.skipIssuerCheck = true; $0.skipClientIDCheck = true
                }) == .missingClaim("iss"))
        #expect(
            try await outcome(
                bare,
                {
                    $0.kind = .jwt; $0.skipClientIDCheck = true
                }) == .missingClaim("iss"))
        #expect(
            try await outcome(
                bare,
                {
                    $0.kind = .jwt; $0.skipIssuerCheck = true
                }) == .audience(expected: TestIssuer.clientID, got: []))
        let noSub = try idp.sign(
            JSONObject([("iss", .string(TestIssuer.issuer)), ("aud", .string(TestIssuer.clientID)), ("exp", .integer(t + 600))]))
        #expect(try await outcome(noSub, { $0.kind = .jwt }) == nil)
        #expect(try await outcome(noSub, { _ in }) == .missingClaim("sub"))
        // exp: required by the time checks for both kinds; with them skipped, only an ID token needs it.
        let noExp = try idp.sign(
            JSONObject([("iss", .string(TestIssuer.issuer)), ("sub", "u"), ("aud", .string(TestIssuer.clientID)), ("iat", .integer(t))]))
        #expect(try await outcome(noExp, { $0.kind = .jwt }) == .missingClaim("exp"))
        #expect(
            try await outcome(
                noExp,
                {
                    $0.kind = .jwt; $0.skipExpiryCheck = true
                }) == nil)
        #expect(try await outcome(noExp, { $0.skipExpiryCheck = true }) == .missingClaim("exp"))
        #expect(try await outcome(noSub, { $0.skipExpiryCheck = true }) == .missingClaim("sub"))
        // No iat: fine for a JWT unless a maximum age asks how old it is.
        #expect(
            try await outcome(
                noSub,
                {
                    $0.kind = .jwt; $0.maxAge = 300
                }) == .missingClaim("iat"))
    }

    @Test func issuedInTheFuture() async throws {
        let idp = try TestIssuer()
        let t = Int64(clock.now().timeIntervalSince1970)
        let future = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("iat", .integer(t + 120))]))
        await expectVerification(future, try verifier(idp)) {
            if case .issuedAt = $0 { return true }; return false
        }
    }

    @Test func nonceCheckedWhenSent() async throws {
        let idp = try TestIssuer()
        let token = try idp.sign(TestIssuer.claims(now: clock.now(), nonce: "other"))
        await expectVerification(token, try verifier(idp), nonce: "mine") { $0 == .nonceMismatch }
        let none = try idp.sign(TestIssuer.claims(now: clock.now()))
        await expectVerification(none, try verifier(idp), nonce: "mine") { $0 == .nonceMismatch }
        // Device-grant ID tokens carry no nonce and none was sent.
        _ = try await verifier(idp).verify(none)
    }

    @Test func atHashCheckedWhenPresent() async throws {
        let idp = try TestIssuer()
        let good = AccessTokenHash.compute(accessToken: "access-1", algorithm: .es256)
        let token = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("at_hash", .string(good))]))
        _ = try await verifier(idp).verify(token, accessToken: "access-1")
        await expectVerification(token, try verifier(idp), accessToken: "access-2") { $0 == .accessTokenHashMismatch }
    }

    @Test func badSignatureRefused() async throws {
        let idp = try TestIssuer()
        let other = try TestIssuer()
        let token = try other.sign(TestIssuer.claims(now: clock.now()))  // same kid "k1", different key
        await expectVerification(token, try verifier(idp)) { $0 == .jose(.invalidSignature) }
    }

    @Test func algorithmNotAllowedOrNoneOrHS256() async throws {
        let idp = try TestIssuer()
        let claims = TestIssuer.claims(now: clock.now())
        let es = try idp.sign(claims)
        await expectVerification(es, try verifier(idp) { $0.allowedAlgorithms = [.rs256] }) { $0 == .jose(.algorithmNotAllowed("ES256")) }
        let none = try idp.sign(claims, alg: "none")
        await expectVerification(none, try verifier(idp)) {
            if case .jose = $0 { return true }; return false
        }
        let hs = try idp.sign(claims, alg: "HS256")
        await expectVerification(hs, try verifier(idp)) {
            if case .jose(.unsupportedAlgorithm("HS256")) = $0 { return true }; return false
        }
    }

    @Test func allowedAlgorithmsAreConfiguredIntersectAdvertised() throws {
        #expect(try IDTokenVerifier.allowedAlgorithms(configured: nil, advertised: ["RS256", "ES256", "HS256", "none"]) == [.rs256, .es256])
        #expect(try IDTokenVerifier.allowedAlgorithms(configured: ["ES256"], advertised: ["RS256", "ES256"]) == [.es256])
        #expect(try IDTokenVerifier.allowedAlgorithms(configured: nil, advertised: nil) == [.rs256])
        #expect(throws: LatchkeyError.self) { try IDTokenVerifier.allowedAlgorithms(configured: ["PS256"], advertised: ["RS256"]) }
        #expect(throws: LatchkeyError.self) { try IDTokenVerifier.allowedAlgorithms(configured: nil, advertised: ["EdDSA"]) }
    }

    @Test func entraTenantSubstitutionOnlyWhenEnabled() async throws {
        let idp = try TestIssuer()
        let common = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let tid = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let token = try idp.sign(
            TestIssuer.claims(
                now: clock.now(),
                extra: [
                    ("iss", .string("https://login.microsoftonline.com/\(tid)/v2.0")), ("tid", .string(tid))
                ]))
        await expectVerification(token, try verifier(idp) { $0.issuer = common }) {
            if case .issuer = $0 { return true }; return false
        }
        _ = try await verifier(idp) {
            $0.issuer = common; $0.substituteEntraTenantID = true
        }.verify(token)
    }

    @Test func refreshedTokenMustKeepIssSubAud() async throws {
        let idp = try TestIssuer()
        let v = try verifier(idp)
        let first = try await v.verify(try idp.sign(TestIssuer.claims(now: clock.now())))
        let same = try await v.verify(try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("extra", "x")])))
        try IDTokenVerifier.checkRefresh(same, previous: first.claims)
        let otherSub = try await v.verify(try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("sub", "user-2")])))
        #expect(throws: LatchkeyError.self) { try IDTokenVerifier.checkRefresh(otherSub, previous: first.claims) }
    }

    // MARK: RemoteKeySet

    func jwksServer(_ keys: @escaping @Sendable () -> [TestIssuer], cacheControl: String? = nil) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, _ in
            guard r.url.path == "/jwks" else { return Reply.empty(404) }
            return Reply.json(200, TestIssuer.jwks(keys()), headers: cacheControl.map { [("Cache-Control", $0)] } ?? [])
        }
    }

    @Test func unknownKidRefetchesOnceAndIsRateLimited() async throws {
        let old = try TestIssuer(kid: "old")
        let new = try TestIssuer(kid: "new")
        let rotated = Flag()
        let t = jwksServer { rotated.value ? [old, new] : [old] }
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: t, time: clock)
        let v = IDTokenVerifier(configuration: .init(issuer: TestIssuer.issuer, clientID: TestIssuer.clientID), keySet: keys, time: clock)
        _ = try await v.verify(try old.sign(TestIssuer.claims(now: clock.now())))
        #expect(t.sent.count == 1)
        // An unknown kid: one refetch, even right after the first fetch; the key is still unknown, refused.
        let newToken = try new.sign(TestIssuer.claims(now: clock.now()))
        await expectVerification(newToken, v) { $0 == .jose(.noMatchingKey(kid: "new")) }
        #expect(t.sent.count == 2)
        // More unknown kids within the minute: no further fetch.
        await expectVerification(newToken, v) { $0 == .jose(.noMatchingKey(kid: "new")) }
        let forged = try new.sign(TestIssuer.claims(now: clock.now()), kid: "forged")
        await expectVerification(forged, v) { $0 == .jose(.noMatchingKey(kid: "forged")) }
        #expect(t.sent.count == 2)
        // A minute later the issuer has rotated: one refetch, accepted, and then cached.
        clock.advance(61)
        rotated.value = true
        _ = try await v.verify(try new.sign(TestIssuer.claims(now: clock.now())))
        #expect(t.sent.count == 3)
        _ = try await v.verify(try new.sign(TestIssuer.claims(now: clock.now())))
        #expect(t.sent.count == 3)
    }

    @Test func firstFetchThenRotatedKeyIsPickedUpAtOnce() async throws {
        // The scripted IdP's jwks-rotating-keys: the first JWKS lacks the key the token uses.
        let k1 = try TestIssuer(kid: "key-1")
        let k2 = try TestIssuer(kid: "key-2")
        let t = ScriptedTransport(clock: clock) { _, index in Reply.json(200, TestIssuer.jwks(index == 0 ? [k1] : [k2])) }
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: t, time: clock)
        let v = IDTokenVerifier(configuration: .init(issuer: TestIssuer.issuer, clientID: TestIssuer.clientID), keySet: keys, time: clock)
        _ = try await v.verify(try k2.sign(TestIssuer.claims(now: clock.now())))
        #expect(t.sent.count == 2)
    }

    @Test func badClaimsNeverCauseAFetch() async throws {
        let idp = try TestIssuer()
        let t = jwksServer { [idp] }
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: t, time: clock)
        let v = IDTokenVerifier(configuration: .init(issuer: TestIssuer.issuer, clientID: TestIssuer.clientID), keySet: keys, time: clock)
        let wrongAud = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("aud", "x")]), kid: "unknown")
        await expectVerification(wrongAud, v) {
            if case .audience = $0 { return true }; return false
        }
        #expect(t.sent.isEmpty)
    }

    @Test func cacheHonoursMaxAgeWithinBounds() async throws {
        #expect(RemoteKeySet.cacheAge("public, max-age=300") == 300)
        #expect(RemoteKeySet.cacheAge("max-age=5") == 60)
        #expect(RemoteKeySet.cacheAge("max-age=999999") == 86_400)
        #expect(RemoteKeySet.cacheAge("no-store") == 60)
        #expect(RemoteKeySet.cacheAge(nil) == 3600)

        let idp = try TestIssuer()
        let t = jwksServer({ [idp] }, cacheControl: "max-age=300")
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: t, time: clock)
        _ = try await keys.currentKeys()
        clock.advance(299)
        _ = try await keys.currentKeys()
        #expect(t.sent.count == 1)
        clock.advance(2)
        _ = try await keys.currentKeys()
        #expect(t.sent.count == 2)
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLockish()
    private var v = false
    var value: Bool {
        get { lock.run { v } }
        set { lock.run { v = newValue } }
    }
}

/// OIDC Core §3.1.2.1, §2: what the sign-in asked of the authentication, checked on the ID token.
@Suite struct AuthenticationRequirementVerifierTests {
    let clock = VirtualClock()

    func verify(_ extra: [(String, JSONValue)], asked: AuthenticationRequirement) async throws -> VerifiedIDToken {
        let idp = try TestIssuer()
        var c = IDTokenVerifier.Configuration(issuer: TestIssuer.issuer, clientID: TestIssuer.clientID, allowedAlgorithms: [.es256, .rs256])
        c.authentication = asked
        let token = try idp.sign(TestIssuer.claims(now: clock.now(), extra: extra))
        return try await IDTokenVerifier(configuration: c, keySet: try idp.keySet(), time: clock).verify(token)
    }

    func refusal(_ extra: [(String, JSONValue)], asked: AuthenticationRequirement) async -> IDTokenError? {
        do {
            _ = try await verify(extra, asked: asked)
            return nil
        } catch {
            guard let error = error as? LatchkeyError, case .verification(let e) = error else { return nil }
            return e
        }
    }

    @Test func acrMustBeOneOfThoseAsked() async throws {
        let asked = AuthenticationRequirement(acrValues: ["mfa", "hwk"])
        _ = try await verify([("acr", "hwk")], asked: asked)
        #expect(await refusal([("acr", "pwd")], asked: asked) == .authenticationContext(expected: ["mfa", "hwk"], got: "pwd"))
        #expect(await refusal([], asked: asked) == .authenticationContext(expected: ["mfa", "hwk"], got: nil))
        // Nothing asked, nothing checked.
        _ = try await verify([("acr", "pwd")], asked: AuthenticationRequirement())
    }

    @Test func maxAgeNeedsARecentAuthTime() async throws {
        let now = Int64(clock.now().timeIntervalSince1970)
        let asked = AuthenticationRequirement(maxAge: 300)
        _ = try await verify([("auth_time", .integer(now - 300 - 59))], asked: asked)
        #expect(await refusal([], asked: asked) == .missingClaim("auth_time"))
        #expect(
            await refusal([("auth_time", .integer(now - 300 - 61))], asked: asked)
                == .authenticationTooOld(authTime: now - 361, maxAge: 300, now: now))
    }
}
