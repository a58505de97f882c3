internal import CMbedTLS

/// Lets mbedTLS functions that take an `f_rng`/`p_rng` pair draw from a `RandomSource`.
final class RandomSourceBridge {
    let source: any RandomSource
    init(_ source: any RandomSource) { self.source = source }

    /// Runs `body` with the C callback and its context pointer, keeping `self` alive meanwhile.
    func withCallback<R, E: Error>(
        _ body: (
            @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int) -> Int32,
            UnsafeMutableRawPointer
        ) throws(E) -> R
    ) throws(E) -> R {
        let context = Unmanaged.passUnretained(self).toOpaque()
        defer { withExtendedLifetime(self) {} }
        return try body(latchkeyRandomSourceCallback, context)
    }
}

/// The `f_rng` handed to mbedTLS; `context` is an unretained `RandomSourceBridge`.
private func latchkeyRandomSourceCallback(_ context: UnsafeMutableRawPointer?, _ output: UnsafeMutablePointer<UInt8>?, _ length: Int)
    -> Int32
{
    guard let context, let output else { return MBEDTLS_ERR_CTR_DRBG_REQUEST_TOO_BIG }
    let bridge = Unmanaged<RandomSourceBridge>.fromOpaque(context).takeUnretainedValue()
    let bytes = bridge.source.bytes(length)
    guard bytes.count == length else { return MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED }
    bytes.withUnsafeBufferPointer { output.update(from: $0.baseAddress!, count: length) }
    return 0
}
