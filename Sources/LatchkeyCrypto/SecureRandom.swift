internal import CMbedTLS
import Synchronization

/// The production `RandomSource`: mbedTLS CTR_DRBG (AES-256) seeded from `mbedtls_entropy`
/// (getrandom / /dev/urandom). Safe to share between tasks and threads.
///
/// Prediction resistance is off; CTR_DRBG reseeds itself from the entropy source every
/// `MBEDTLS_CTR_DRBG_RESEED_INTERVAL` requests.
public final class SecureRandom: RandomSource, @unchecked Sendable {
    // @unchecked: the contexts are only touched under `lock`, and never move (heap-allocated,
    // because CTR_DRBG keeps a pointer to the entropy context).
    private let entropy: UnsafeMutableRawPointer  // an mbedtls_entropy_context (see latchkey_entropy_new)
    private let drbg: UnsafeMutablePointer<mbedtls_ctr_drbg_context>
    private let lock = Mutex(())

    /// Seeds a new generator; fails only if the system entropy source does.
    public init() throws(CryptoError) {
        guard let entropy = latchkey_entropy_new() else { throw CryptoError.mbedTLS(code: -1, operation: "latchkey_entropy_new") }
        self.entropy = entropy
        drbg = .allocate(capacity: 1)
        mbedtls_ctr_drbg_init(drbg)
        // Personalisation string separates this DRBG instance from any other seeded at the same time.
        let personalization = Array("latchkey.SecureRandom".utf8)
        let code = personalization.withUnsafeBufferPointer {
            mbedtls_ctr_drbg_seed(drbg, mbedtls_entropy_func, entropy, $0.baseAddress, $0.count)
        }
        if code != 0 {
            release()
            throw CryptoError.mbedTLS(code: code, operation: "mbedtls_ctr_drbg_seed")
        }
    }

    deinit { release() }

    private func release() {
        mbedtls_ctr_drbg_free(drbg)
        latchkey_entropy_free(entropy)
        drbg.deallocate()
    }

    /// `count` random bytes. Traps if the DRBG fails (entropy source gone): returning weak
    /// bytes would be worse than stopping.
    public func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var output = [UInt8](repeating: 0, count: count)
        output.withUnsafeMutableBytes { fill($0) }
        return output
    }

    /// Fills `buffer` with random bytes, in requests no larger than CTR_DRBG allows.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        lock.withLock { _ in
            var offset = 0
            while offset < buffer.count {
                let chunk = min(Int(MBEDTLS_CTR_DRBG_MAX_REQUEST), buffer.count - offset)
                let code = mbedtls_ctr_drbg_random(drbg, base + offset, chunk)
                if code != 0 {
                    fatalError("SecureRandom: CTR_DRBG failed: \(CryptoError.mbedTLSText(code))")
                }
                offset += chunk
            }
        }
    }
}
