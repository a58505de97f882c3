import LatchkeyCrypto

/// A deterministic `RandomSource`: byte i of every request is `i·31 + seed` (mod 256), so PKCE
/// verifiers, `state` values and keys come out the same on every run. Tests only: nothing it
/// makes is secret.
public struct CountingRandom: RandomSource {
    /// Added to every byte; two seeds give two different streams.
    public let seed: UInt8

    /// A source whose bytes start at `seed`.
    public init(seed: UInt8 = 7) { self.seed = seed }

    /// `count` bytes of the counting pattern, the same for every call.
    public func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }
}
