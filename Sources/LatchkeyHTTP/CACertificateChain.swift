internal import CMbedTLS
import Glibc
import Synchronization

/// A parsed CA bundle, owned by one TLS session at a time (see `CAChainCache`).
final class CACertificateChain: @unchecked Sendable {
    let chain: UnsafeMutablePointer<mbedtls_x509_crt>

    init(path: String) throws(HTTPError) {
        var bytes = try Self.readTrusted(path)
        // mbedTLS parses PEM only from a NUL-terminated buffer whose length counts the NUL.
        bytes.append(0)
        // Parse into a local first: a throwing class init that had set every property would still run
        // deinit, which must then not free a chain already freed here.
        let parsed = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
        mbedtls_x509_crt_init(parsed)
        let rc = bytes.withUnsafeBufferPointer { mbedtls_x509_crt_parse(parsed, $0.baseAddress, $0.count) }
        // A positive result counts certificates that failed to parse; keep the rest, as curl does,
        // but an empty chain can verify nothing.
        if rc < 0 || parsed.pointee.version == 0 {
            mbedtls_x509_crt_free(parsed)
            parsed.deallocate()
            throw .tlsFailure(reason: "cannot load CA bundle \(path): \(MbedTLSError.text(rc))")
        }
        chain = parsed
    }

    /// The largest bundle read (the system bundles are about 200 KB).
    static let sizeLimit = 16 << 20

    /// The bundle's bytes, read from the descriptor that was checked, so the file checked is the
    /// file parsed. Throws `.unreadableCABundle` unless `path` opens as a regular file (a bundle that
    /// is named but missing is the caller's setting to fix, not a network failure), and
    /// `.untrustedCABundle` when anyone but this user and root can write the file or a folder
    /// above it: they would choose which servers are trusted, and so who receives the tokens.
    /// O_NONBLOCK: a FIFO planted there must not hang.
    static func readTrusted(_ path: String) throws(HTTPError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadableCABundle(path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadableCABundle(path: path, errno: errno) }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else { throw .unreadableCABundle(path: path, errno: type == S_IFDIR ? EISDIR : EINVAL) }
        // The folders by path, the file by its descriptor: once no folder above it can be written by
        // someone else, nobody else can have swapped the file between the walk and the open.
        if let writer = ForeignWriter.of(path) ?? ForeignWriter.check(path, info: info) {
            throw .untrustedCABundle(path: path, writer: writer)
        }
        guard Int(info.st_size) <= sizeLimit else { throw .unreadableCABundle(path: path, errno: EFBIG) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .unreadableCABundle(path: path, errno: errno) }
            if n == 0 { break }
            filled += n
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// The `tlsFailure` reason when no CA bundle was found at all.
    static let noBundleReason = "no CA bundle found"

    deinit {
        mbedtls_x509_crt_free(chain)
        chain.deallocate()
    }
}

/// Parses the CA bundle once and lends the parsed chain to one handshake at a time.
///
/// Verification is not read-only in mbedTLS (2.28 and 3.6): checking a signature made by an EC root stores a
/// precomputed table in that root key's group (MBEDTLS_ECP_FIXED_POINT_OPTIM), so one parsed chain must
/// never serve two concurrent handshakes. Sequential requests reuse one parse; N concurrent requests
/// parse at most N copies, which are then kept for reuse.
final class CAChainCache: Sendable {
    let path: String?
    private struct State {
        var idle: [CACertificateChain] = []
        var failure: HTTPError?
    }
    private let state = Mutex(State())

    init(path: String?) { self.path = path }

    /// A chain for the caller's exclusive use; give it back with `checkIn`.
    func checkOut() throws(HTTPError) -> CACertificateChain {
        let cached = state.withLock { s -> Result<CACertificateChain, HTTPError>? in
            if let failure = s.failure { return .failure(failure) }
            return s.idle.popLast().map { .success($0) }
        }
        if let cached { return try cached.get() }
        guard let path else {
            throw .tlsFailure(reason: CACertificateChain.noBundleReason)
        }
        do throws(HTTPError) {
            return try CACertificateChain(path: path)
        } catch {
            state.withLock { $0.failure = error }
            throw error
        }
    }

    /// Returns a chain after its handshake has ended.
    func checkIn(_ chain: CACertificateChain) {
        state.withLock { s in
            if s.idle.count < 8 { s.idle.append(chain) }
        }
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
