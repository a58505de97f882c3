import LatchkeyCrypto
import LatchkeyHTTP

/// Throwaway client identities made by Tests/Harness/http/make_client_certs.sh with openssl, once per
/// test process (the file list is in the script's header).
struct ClientPKI: Sendable {
    let directory: String
    var caFile: String { directory + "/client-ca.pem" }

    func path(_ file: String) -> String { directory + "/" + file }
    func bytes(_ file: String) -> [UInt8] { Array(TestEnvironment.readFile(path(file)).utf8) }

    /// The identity from `cert` and `key` (file names in the directory), checked at `time`.
    func identity(_ cert: String, _ key: String, at time: Timestamp = .now()) throws(ClientIdentityError) -> TLSClientIdentity {
        try TLSClientIdentity(certificateChainPEM: bytes(cert), privateKeyPEM: SecretBytes(bytes(key)), at: time)
    }

    /// `shared`, awaited off the cooperative pool: its first use blocks while openssl runs.
    static func made() async throws -> ClientPKI { try await offPool { try shared.get() } }

    static let shared: Result<ClientPKI, SpawnError> = Result { () throws(SpawnError) -> ClientPKI in
        let dir = TestEnvironment.makeTemporaryDirectory()
        let status: Int32
        do {
            status = try SpawnedProcess.run(
                ["/bin/sh", TestEnvironment.harnessDirectory + "/make_client_certs.sh", dir],
                stderrPath: dir + "/make_client_certs.log")
        } catch { throw .failed("\(error)") }
        guard status == 0 else {
            throw .failed("make_client_certs.sh failed (\(status)): \(TestEnvironment.readFile(dir + "/make_client_certs.log"))")
        }
        return ClientPKI(directory: dir)
    }
}

/// Runs `body` and returns the ClientIdentityError it threw (nil if it threw nothing or something else).
func identityError(_ body: () throws -> TLSClientIdentity) -> ClientIdentityError? {
    do { _ = try body(); return nil } catch let e as ClientIdentityError { return e } catch { return nil }
}
