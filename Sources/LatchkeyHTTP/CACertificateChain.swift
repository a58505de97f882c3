import CMbedTLS
import Synchronization

/// A parsed CA bundle. Parsed once per client (a system bundle is ~150 certificates) and then only read
/// by mbedTLS during verification, which is safe from several connections at once.
final class CACertificateChain: @unchecked Sendable {
    let chain: UnsafeMutablePointer<mbedtls_x509_crt>

    init(path: String) throws(HTTPError) {
        // Parse into a local first: a throwing class init that had set every property would still run
        // deinit, which must then not free a chain already freed here.
        let parsed = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(parsed)
        let rc = mbedtls_x509_crt_parse_file(parsed, path)
        // A positive result counts certificates that failed to parse; keep the rest, as curl does,
        // but an empty chain can verify nothing.
        if rc < 0 || parsed.pointee.version == 0 {
            mbedtls_x509_crt_free(parsed)
            parsed.deallocate()
            throw .tlsFailure(reason: "cannot load CA bundle \(path): \(MbedTLSError.text(rc))")
        }
        chain = parsed
    }

    deinit {
        mbedtls_x509_crt_free(chain)
        chain.deallocate()
    }
}

/// Loads the CA bundle lazily, once, and remembers the outcome (success or the error).
final class CAChainCache: Sendable {
    let path: String?
    private let state = Mutex<Result<CACertificateChain, HTTPError>?>(nil)

    init(path: String?) { self.path = path }

    func chain() throws(HTTPError) -> CACertificateChain {
        let result = state.withLock { (cached: inout Result<CACertificateChain, HTTPError>?) -> Result<CACertificateChain, HTTPError> in
            if let cached { return cached }
            let loaded: Result<CACertificateChain, HTTPError>
            if let path {
                do throws(HTTPError) { loaded = .success(try CACertificateChain(path: path)) }
                catch { loaded = .failure(error) }
            } else {
                loaded = .failure(.tlsFailure(reason: "no CA bundle found (use --ca-file, LATCHKEY_CA_FILE or SSL_CERT_FILE)"))
            }
            cached = loaded
            return loaded
        }
        return try result.get()
    }
}

/// mbedTLS error codes as text.
enum MbedTLSError {
    static func text(_ code: Int32) -> String {
        var buf = [CChar](repeating: 0, count: 160)
        mbedtls_strerror(code, &buf, buf.count)
        let message = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(message) (-0x\(String(-Int(code), radix: 16, uppercase: true)))"
    }
}
