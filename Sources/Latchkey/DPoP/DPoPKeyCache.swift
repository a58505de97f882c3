import LatchkeyCrypto
import Synchronization

/// The DPoP key of a session, decoded from its stored scalar once per process and reused for every
/// proof (sign-in, refresh, logout, each resource request and redirect hop). A different scalar
/// (another sign-in meanwhile) replaces it; scalars are compared in constant time.
final class DPoPKeyCache: Sendable {
    private let entry = Mutex<(scalar: SecretBytes, key: DPoPKey)?>(nil)

    /// The key of `binding`.
    func key(for binding: DPoPBinding, random: some RandomSource) throws(LatchkeyError) -> DPoPKey {
        if let cached = entry.withLock({ e in
            e.flatMap { ConstantTime.equals($0.scalar.bytes, binding.privateScalar.bytes) ? $0.key : nil }
        }) {
            return cached
        }
        let key = try binding.key(random: random)
        entry.withLock { $0 = (binding.privateScalar, key) }
        return key
    }

    /// Remembers `key`, made for a new sign-in, under its scalar.
    func remember(_ key: DPoPKey) {
        entry.withLock { $0 = (key.rawScalar, key) }
    }
}
