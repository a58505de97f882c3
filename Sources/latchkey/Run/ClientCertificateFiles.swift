import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// The profile's client certificate and key files (RFC 8705), read at each use and handed to the
/// library. The certificate is public (`PublicFile`: any mode, a regular file within the size
/// limit); the key has the token file's rules (`OwnerOnlyFile`: owner-only, else exit 9) and its
/// bytes are held only while the identity is made.
struct ClientCertificateFiles: ClientCertificateSource {
    let certificatePath: String
    let keyPath: String

    func read() throws(LatchkeyError) -> ClientCertificateMaterial {
        do {
            let certificate = try PublicFile.read(certificatePath)
            return ClientCertificateMaterial(certificateChainPEM: certificate, privateKeyPEM: try OwnerOnlyFile.readSecret(keyPath))
        } catch {
            throw .storage(error)
        }
    }

    /// `path` made absolute against the current directory, so the profile can remember it.
    static func absolute(_ path: String) -> String { ForeignWriter.absolute(path) }
}
