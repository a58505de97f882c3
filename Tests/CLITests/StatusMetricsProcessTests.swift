import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

@testable import latchkey

/// `status --format openmetrics` (issue 25): the sign-in state as node_exporter's textfile
/// collector reads it, accepted by `promtool check metrics`, and never a token or secret.
@Suite("latchkey binary: status --format openmetrics")
struct StatusMetricsProcessTests {
    static let secrets = (
        access: "access-SECRET-a1b2c3", refresh: "refresh-SECRET-d4e5f6", id: "eyJhbGciOiJub25lIn0.e30.id-SECRET",
        clientSecret: "client-SECRET-g7h8i9", dpopScalar: [UInt8](repeating: 0x5A, count: 31) + [0x17]
    )

    /// A DPoP-bound session holding every kind of secret, sealed with the machine key.
    func signInWithSecrets(_ cli: LatchkeyCommand, profile: String) throws {
        let now = Timestamp.now()
        var metadata = ProviderMetadata(issuer: StoredSessionFixture.issuer)
        metadata.tokenEndpoint = StoredSessionFixture.issuer + "/token"
        let token = Token(
            accessToken: Self.secrets.access, tokenType: "DPoP", refreshToken: Self.secrets.refresh,
            expiresAt: Timestamp(timeIntervalSince1970: Double(now.epochSeconds + 1800)), scope: "openid", idToken: Self.secrets.id)
        var session = StoredSession(
            profile: profile, issuer: StoredSessionFixture.issuer, clientID: "cli", token: token,
            metadata: metadata, createdAt: now, updatedAt: now)
        session.dpop = DPoPBinding(privateScalar: SecretBytes(Self.secrets.dpopScalar))
        #expect(
            FileText.write(
                #"{"issuer":"\#(StoredSessionFixture.issuer)","client_id":"cli","key_source":"machine"}"#,
                to: cli.stateDirectory + "/profiles/\(profile).json"))
        try EncryptedFileTokenStore(stateDirectory: cli.stateDirectory, profile: profile, keySource: .machine).save(session)
    }

    func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }

    func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        return n > 0 ? Array(buffer[0..<n]) : nil
    }

    func promtool() throws -> String {
        try Requirement.requireOrSkip(
            access("/usr/bin/promtool", X_OK) == 0 ? "/usr/bin/promtool" : nil,
            "/usr/bin/promtool is not installed (apt-get install prometheus)")
    }

    @Test func oneProfileSignedInAndPromtoolAcceptsIt() throws {
        try withCLI { cli, _ in
            try StoredSessionFixture.signIn(cli)
            let result = try cli.run(["status", "--format", "openmetrics"])
            #expect(result.exitCode == 0, "\(result)")
            let text = result.stdoutText
            #expect(text.contains("latchkey_signed_in{profile=\"default\"} 1\n"), "\(text)")
            #expect(text.contains("latchkey_refresh_token_held{profile=\"default\"} 1\n"), "\(text)")
            #expect(text.contains("latchkey_token_binding{profile=\"default\",binding=\"none\"} 1\n"), "\(text)")
            #expect(text.contains("latchkey_info{version=\"\(ToolVersion.number)\",mbedtls=\"\(MbedTLSInfo.version)\"} 1\n"), "\(text)")
            #expect(text.contains("latchkey_access_token_expiry_timestamp_seconds{profile=\"default\"} 1"), "\(text)")
            let check = try ProcessRunner.run(try promtool(), ["check", "metrics"], stdin: result.stdout)
            #expect(check.exitCode == 0 && check.stdoutText.isEmpty && check.stderrText.isEmpty, "\(check)")
        }
    }

    @Test func allProfilesWithHostileNamesStayValidAndHoldNoSecret() throws {
        try withCLI(["LATCHKEY_CLIENT_SECRET": Self.secrets.clientSecret]) { cli, _ in
            StoredSessionFixture.writeProfile(cli)
            // A quote, a backslash and a brace in a profile name must not break out of the label.
            let hostile = #"we"ird\name}"#
            try signInWithSecrets(cli, profile: "bound")
            #expect(
                FileText.write(
                    #"{"issuer":"\#(StoredSessionFixture.issuer)","client_id":"cli","key_source":"machine"}"#,
                    to: cli.stateDirectory + "/profiles/\(hostile).json"))
            let result = try cli.run(["status", "--format", "openmetrics", "--all-profiles"])
            #expect(result.exitCode == 0, "\(result)")
            let text = result.stdoutText
            #expect(text.contains(#"latchkey_status_readable{profile="we\"ird\\name}"} 0"#), "\(text)")
            #expect(text.contains("latchkey_token_binding{profile=\"bound\",binding=\"dpop\"} 1\n"), "\(text)")
            #expect(text.contains("latchkey_signed_in{profile=\"default\"} 0\n"), "\(text)")
            let store = EncryptedFileTokenStore(stateDirectory: cli.stateDirectory, profile: "bound", keySource: .machine)
            let machineKey = try #require(readBytes(store.machineKeyPath))
            #expect(machineKey.count >= 32)
            let forbidden = [
                Self.secrets.access, Self.secrets.refresh, Self.secrets.id, "id-SECRET", Self.secrets.clientSecret,
                hex(Self.secrets.dpopScalar), Base64URL.encode(Self.secrets.dpopScalar), Base64.encode(Self.secrets.dpopScalar),
                hex(machineKey), Base64URL.encode(machineKey), Base64.encode(machineKey), "SECRET"
            ]
            for secret in forbidden { #expect(!text.contains(secret), "'\(secret)' in:\n\(text)") }
            let check = try ProcessRunner.run(try promtool(), ["check", "metrics"], stdin: result.stdout)
            #expect(check.exitCode == 0 && check.stderrText.isEmpty, "\(check)\n\(text)")
        }
    }

    @Test func signedOutIsAMetricNotAFailureAndBadUseIsExit2() throws {
        try withCLI { cli, _ in
            let result = try cli.run(["status", "--format", "openmetrics"])
            #expect(result.exitCode == 0 && result.stdoutText.contains("latchkey_signed_in{profile=\"default\"} 0\n"), "\(result)")
            let alone = try cli.run(["status", "--all-profiles"])
            #expect(alone.exitCode == 2 && alone.stderrText.hasPrefix("latchkey: --all-profiles needs --format openmetrics"), "\(alone)")
            let bad = try cli.run(["status", "--format", "yaml"])
            #expect(bad.exitCode == 2, "\(bad)")
        }
    }

    @Test func labelValuesAreEscaped() {
        #expect(MetricsText.escapeLabelValue("a\"b\\c\nd") == #"a\"b\\c\nd"#)
    }
}
