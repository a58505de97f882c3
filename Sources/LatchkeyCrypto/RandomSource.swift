/// A source of cryptographically strong random bytes. Injected everywhere randomness is needed,
/// so tests can substitute a deterministic source.
public protocol RandomSource: Sendable {
    /// `count` random bytes. Implementations must not return fewer; they trap rather than
    /// return weak output.
    func bytes(_ count: Int) -> [UInt8]
}
