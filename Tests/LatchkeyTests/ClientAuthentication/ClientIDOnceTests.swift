import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// `client_id` is never sent twice (RFC 6749 §3.1; RFC 9126 §2.1 makes strict servers refuse a
/// pushed request that repeats it): whatever the authentication method and the endpoint, a form
/// that already names the client (a pushed authorization request carries it as an authorization
/// parameter) keeps its one `client_id`, and one without it gets exactly one.
@Suite struct ClientIDOnceTests {
    static let url = HTTPURL(string: "https://idp.example/endpoint")!

    /// Every method's authenticator for client "c".
    static func authenticators() throws -> [(ClientAuthMethod, any RequestAuthenticator)] {
        try ClientAuthMethod.allCases.map { method in
            if method == .privateKeyJWT {
                let key = PrivateKeyJWTTests.MemoryKey(PEMFixtures.p256PKCS8)
                return (method, PrivateKeyJWTAuthentication(clientID: "c", issuer: "https://idp.example", key: key))
            }
            return (method, try method.authenticator(clientID: "c", secret: "s"))
        }
    }

    @Test func everyMethodSendsClientIDOnceOnEveryRoleThatAuthenticates() throws {
        let context = RequestContext(now: VirtualClock().now(), random: CountingRandom(), nonces: ServerNonces())
        for (method, authenticator) in try Self.authenticators() {
            for role in EndpointRole.allCases where role.authenticatesClient {
                // A form that already names the client (PAR's authorization parameters) and one that does not.
                for form in [[("response_type", "code"), ("client_id", "c"), ("scope", "openid")], [("grant_type", "x")]] {
                    var request = ProviderRequest(role: role, url: Self.url, form: form)
                    try authenticator.authenticate(&request, context: context)
                    let count = request.form.filter { $0.0 == "client_id" }.count
                    // client_secret_basic names the client in the header; the body may still carry it once.
                    let expected = method == .clientSecretBasic && !form.contains(where: { $0.0 == "client_id" }) ? 0 : 1
                    #expect(count == expected, "\(method) on \(role) with \(form.map(\.0)): client_id \(count) times")
                }
            }
        }
    }
}
