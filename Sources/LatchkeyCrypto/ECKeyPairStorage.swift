internal import CMbedTLS
import Synchronization

/// Owns an `mbedtls_ecp_keypair` (group, point, optional scalar) and serialises its use.
/// The lock is needed because ECDSA caches the generator's comb table inside the group
/// on first use, which mutates it; parsing once and keeping the cache is what makes
/// repeated verifies fast.
final class ECKeyPairStorage: @unchecked Sendable {
    // @unchecked: the keypair is only touched inside `withKeyPair`, under `lock`.
    private let keyPair: UnsafeMutablePointer<mbedtls_ecp_keypair>
    private let lock = Mutex(())

    /// An empty keypair on `curve`'s group.
    init(curve: ECCurve) throws(CryptoError) {
        keyPair = .allocate(capacity: 1)
        mbedtls_ecp_keypair_init(keyPair)
        let code = mbedtls_ecp_group_load(latchkey_ecp_grp(keyPair), curve.groupID)
        if code != 0 {
            mbedtls_ecp_keypair_free(keyPair)
            keyPair.deallocate()
            throw .mbedTLS(code: code, operation: "mbedtls_ecp_group_load")
        }
    }

    deinit {
        // Frees and zeroes the private scalar, if any.
        mbedtls_ecp_keypair_free(keyPair)
        keyPair.deallocate()
    }

    /// Exclusive access to the keypair.
    func withKeyPair<R, E: Error>(_ body: (UnsafeMutablePointer<mbedtls_ecp_keypair>) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = lock.withLock { _ in
            do throws(E) { return .success(try body(keyPair)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
