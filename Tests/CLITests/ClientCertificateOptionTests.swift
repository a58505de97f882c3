import Glibc
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import latchkey

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
            (
                ["--auth-method", "self_signed_tls_client_auth", "--client-cert-file", "/x.pem"],
                "--client-cert-file and --client-cert-key-file go together"
            ),
            (["--client-cert-key-file", "/x.key"], "--client-cert-file and --client-cert-key-file go together")
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
        let r = try cli.run([
            "login", "--issuer", Self.issuer, "--client-id", "device-1", "--auth-method", "tls_client_auth",
            "--client-cert-file", dir.path + "/absent.pem", "--client-cert-key-file", dir.path + "/absent.key"
        ])
        #expect(r.exitCode == 9, "\(r) \(r.stderrText)")
        #expect(r.stderrText.contains("absent.pem"), "\(r.stderrText)")
    }

    @Test func aPublicCertificateIsAcceptedAndOnlyTheKeyMustBeOwnerOnly() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state")
        let certificate = dir.path + "/device.pem", key = dir.path + "/device.key"
        #expect(FileText.write("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", to: certificate, mode: 0o644))
        #expect(FileText.write(PEMFixtures.p256PKCS8, to: key, mode: 0o644))
        chmod(certificate, 0o644)
        chmod(key, 0o644)
        let r = try cli.run([
            "login", "--issuer", Self.issuer, "--client-id", "device-1", "--auth-method", "tls_client_auth",
            "--client-cert-file", certificate, "--client-cert-key-file", key
        ])
        #expect(r.exitCode == 9, "\(r) \(r.stderrText)")
        let first = r.stderrText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains(key) && first.contains("mode 0644"), "the key is the file refused: \(first)")
        #expect(!first.contains(certificate), "the public certificate was refused for its mode: \(first)")
    }
}

/// The certificate is public and the key secret (cli.md: "A certificate is public: the usual 0644
/// is fine"): the two files of `--client-cert-file`/`--client-cert-key-file` are read by different rules.
@Suite("client certificate files: a public certificate, an owner-only key")
struct ClientCertificateFileRuleTests {
    static func files(certificateMode: mode_t, keyMode: mode_t, in dir: TemporaryDirectory) -> ClientCertificateFiles {
        let certificate = dir.path + "/device.pem", key = dir.path + "/device.key"
        #expect(FileText.write("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", to: certificate, mode: certificateMode))
        #expect(FileText.write(PEMFixtures.p256PKCS8, to: key, mode: keyMode))
        chmod(certificate, certificateMode)
        chmod(key, keyMode)
        return ClientCertificateFiles(certificatePath: certificate, keyPath: key)
    }

    @Test func aCertificateAtModeSixFourFourIsRead() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for mode: mode_t in [0o644, 0o444, 0o664, 0o600] {
            let material = try Self.files(certificateMode: mode, keyMode: 0o600, in: dir).read()
            #expect(String(decoding: material.certificateChainPEM, as: UTF8.self).hasPrefix("-----BEGIN CERTIFICATE-----"), "mode \(mode)")
        }
    }

    @Test func theKeyKeepsTheOwnerOnlyRule() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for mode: mode_t in [0o644, 0o640, 0o604] {
            do {
                _ = try Self.files(certificateMode: 0o644, keyMode: mode, in: dir).read()
                Issue.record("a key at mode \(String(mode, radix: 8)) was read")
            } catch {
                guard case .storage(.unsafePermissions(let path, _)) = error else {
                    Issue.record("got \(error)"); continue
                }
                #expect(path == dir.path + "/device.key")
            }
        }
    }

    @Test func aCertificateThatIsNotARegularFileOrTooLargeIsRefused() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let key = dir.path + "/device.key"
        #expect(FileText.write(PEMFixtures.p256PKCS8, to: key, mode: 0o600))
        let big = dir.path + "/big.pem"
        #expect(FileText.write(String(repeating: "x", count: OwnerOnlyFile.defaultLimit + 1), to: big, mode: 0o644))
        let fifo = dir.path + "/fifo.pem"
        #expect(mkfifo(fifo, 0o644) == 0)
        for path in [dir.path, big, fifo, dir.path + "/absent.pem"] {
            #expect(throws: LatchkeyError.self, "\(path)") { _ = try ClientCertificateFiles(certificatePath: path, keyPath: key).read() }
        }
    }
}
