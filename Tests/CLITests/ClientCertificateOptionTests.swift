import Glibc
import LatchkeyTestSupport
import Testing

/// `--auth-method tls_client_auth|self_signed_tls_client_auth` with `--client-cert-file` and
/// `--client-cert-key-file`: the usage errors, found before anything is sent (the issuer is a
/// closed port, so any network use would be exit 6, not 2).
@Suite("latchkey binary: client certificate options")
struct ClientCertificateOptionTests {
    static let issuer = "http://127.0.0.1:9/api/oidc"

    @Test func theMutualTLSMethodsNeedBothFilesAndTheFilesGoTogether() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state")
        let base = ["login", "--issuer", Self.issuer, "--client-id", "device-1"]
        for (extra, message) in [
            (["--auth-method", "tls_client_auth"], "needs --client-cert-file and --client-cert-key-file"),
            (["--auth-method", "self_signed_tls_client_auth", "--client-cert-file", "/x.pem"],
             "--client-cert-file and --client-cert-key-file go together"),
            (["--client-cert-key-file", "/x.key"], "--client-cert-file and --client-cert-key-file go together"),
        ] {
            let r = try cli.run(base + extra)
            #expect(r.exitCode == 2, "\(extra): \(r) \(r.stderrText)")
            #expect(r.stderrText.contains(message), "\(extra): \(r.stderrText)")
        }
        #expect(access(dir.path + "/state/profiles/default.json", F_OK) != 0, "a failed login saved the profile")
    }

    @Test func aMissingCertificateFileIsAStorageErrorBeforeAnythingIsSent() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state")
        let r = try cli.run(["login", "--issuer", Self.issuer, "--client-id", "device-1", "--auth-method", "tls_client_auth",
                             "--client-cert-file", dir.path + "/absent.pem", "--client-cert-key-file", dir.path + "/absent.key"])
        #expect(r.exitCode == 9, "\(r) \(r.stderrText)")
        #expect(r.stderrText.contains("absent.pem"), "\(r.stderrText)")
    }
}
