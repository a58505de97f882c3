internal import CMbedTLS

/// A scoped `mbedtls_mpi` (big integer): initialised for `body`, freed (and zeroed) after.
enum MPI {
    static func with<R, E: Error>(_ body: (UnsafeMutablePointer<mbedtls_mpi>) throws(E) -> R) throws(E) -> R {
        var value = mbedtls_mpi()
        return try withUnsafeMutablePointer(to: &value) { (pointer) throws(E) -> R in
            mbedtls_mpi_init(pointer)
            defer { mbedtls_mpi_free(pointer) }
            return try body(pointer)
        }
    }

    /// `value` as a big-endian unsigned integer of exactly `count` bytes.
    static func bytes(_ value: UnsafePointer<mbedtls_mpi>, count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let code = out.withUnsafeMutableBufferPointer { mbedtls_mpi_write_binary(value, $0.baseAddress, $0.count) }
        try CryptoError.check(code, "mbedtls_mpi_write_binary")
        return out
    }
}
