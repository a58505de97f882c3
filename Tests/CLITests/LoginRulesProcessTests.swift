import Glibc
import LatchkeyTestSupport
import Testing

/// `login` words the library's sign-in rules with its options, as usage errors (exit 2) found
/// before anything is sent: the issuer is a closed port, so any network use would be exit 6.
@Suite("latchkey binary: login refuses settings that do not go together")
struct LoginRulesProcessTests {
    static let issuer = "http://127.0.0.1:9/api/oidc"

    @Test(arguments: [
        (["--flow", "ciba", "--login-hint", "alice"], "latchkey: --flow ciba needs client authentication (a confidential client)"),
        (["--flow", "client-credentials"], "latchkey: --flow client-credentials needs a confidential client"),
        (["--auth-method", "client_secret_post"], "latchkey: --auth-method client_secret_post needs a client secret"),
        (["--auth-method", "private_key_jwt"], "latchkey: --auth-method private_key_jwt needs the client's private key"),
        (
            ["--flow", "ciba", "--auth-method", "tls_client_auth", "--login-hint", "a"],
            "latchkey: --auth-method tls_client_auth needs --client-cert-file and --client-cert-key-file"
        ),
        // The library's URL rules, stricter than a look at the prefix: http only to loopback,
        // absolute URIs without fragment or spaces.
        (
            ["--token-endpoint", "http://idp.example/token"],
            "latchkey: --token-endpoint must be an https URL, got 'http://idp.example/token'"
        ),
        (["--jwks-uri", "https://idp.example/jwks keys"], "latchkey: --jwks-uri must be an https URL, got 'https://idp.example/jwks keys'"),
        (
            ["--redirect-uri", "http://127.0.0.1:8400/cb#top"],
            "latchkey: --redirect-uri must be an absolute URI, got 'http://127.0.0.1:8400/cb#top'"
        ),
        (
            ["--post-logout-redirect-uri", "https://app.example/#bye"],
            "latchkey: --post-logout-redirect-uri must be an absolute URI, got 'https://app.example/#bye'"
        )
    ])
    func refusedBeforeAnythingIsSent(extra: [String], message: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state")
        let r = try cli.run(["login", "--issuer", Self.issuer, "--client-id", "device-1"] + extra)
        #expect(r.exitCode == 2, "\(extra): \(r) \(r.stderrText)")
        #expect(r.stderrText.split(separator: "\n").first.map(String.init) == message, "\(extra): \(r.stderrText)")
        #expect(access(dir.path + "/state/profiles/default.json", F_OK) != 0, "a refused login saved the profile")
    }
}
