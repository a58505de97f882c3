internal import CMbedTLS

/// Secret key material. The bytes live in one heap buffer that is zeroed with
/// `mbedtls_platform_zeroize` when the last copy of this value is released.
/// Its `description` never shows the bytes, so it is safe to interpolate into logs.
public struct SecretBytes: Sendable, CustomStringConvertible {
    /// Owns the buffer; immutable after initialisation, hence safe to share.
    final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer

        init(count: Int) {
            // Never allocate zero bytes, so the buffer always has a base address.
            let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            buffer = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
            allocation = raw
        }

        private let allocation: UnsafeMutableRawBufferPointer

        deinit {
            Self.wipe(allocation)
            allocation.deallocate()
        }

        /// Overwrites `buffer` with zeros in a way the optimiser cannot drop.
        static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
            mbedtls_platform_zeroize(buffer.baseAddress, buffer.count)
        }
    }

    let storage: Storage

    /// Copies `bytes` into zeroed-on-release storage. The caller's array is not erased.
    public init(_ bytes: [UInt8]) {
        storage = Storage(count: bytes.count)
        bytes.withUnsafeBytes { storage.buffer.copyMemory(from: $0) }
    }

    /// Builds the secret in place, so derived keys never exist in an unmanaged array.
    init(count: Int, initializingWith body: (UnsafeMutableRawBufferPointer) throws(CryptoError) -> Void) throws(CryptoError) {
        storage = Storage(count: count)
        try body(storage.buffer)
    }

    /// `count` fresh random bytes drawn from `random`.
    public init(randomCount count: Int, using random: some RandomSource) {
        precondition(count >= 0, "negative byte count")
        storage = Storage(count: count)
        var drawn = random.bytes(count)
        precondition(drawn.count == count, "RandomSource returned the wrong number of bytes")
        drawn.withUnsafeBytes { storage.buffer.copyMemory(from: $0) }
        drawn.withUnsafeMutableBytes { mbedtls_platform_zeroize($0.baseAddress, $0.count) }
    }

    /// Number of secret bytes.
    public var count: Int { storage.buffer.count }

    /// Read access without copying. Do not let the pointer escape `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(storage.buffer))
    }

    /// A copy of the bytes in an ordinary array, which is NOT zeroed on release; use sparingly
    /// (e.g. to hand a key to an API that needs `[UInt8]`).
    public var bytes: [UInt8] { [UInt8](UnsafeRawBufferPointer(storage.buffer)) }

    /// Redacted: shows only the length.
    public var description: String { "SecretBytes(\(count) bytes)" }
}
