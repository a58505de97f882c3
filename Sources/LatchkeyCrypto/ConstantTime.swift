internal import CMbedTLS

/// Comparisons whose running time does not depend on secret contents.
package enum ConstantTime {
    /// True when `a` and `b` are equal. Time depends on the lengths only, never on the contents.
    package static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in mbedtls_ct_memcmp(pa.baseAddress, pb.baseAddress, pa.count) == 0 }
        }
    }
}
