/// Just enough DER reading to tell which private-key structure a buffer holds before mbedTLS parses
/// it. `mbedtls_pk_parse_key` tries every format in turn, so without this an "RSA PRIVATE KEY"
/// label could carry a PKCS#8 EC key, bytes after the structure would be ignored, and an unknown
/// algorithm would be reported only as "invalid format".
enum PrivateKeyDER {
    /// rsaEncryption (RFC 8017 §A.1).
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    /// id-ecPublicKey (RFC 5480 §2.1.1).
    static let ecPublicKey = "1.2.840.10045.2.1"

    /// The structure `der` holds; throws when it is none of the three, when bytes follow it, or
    /// when a PKCS#8 key is of an algorithm other than RSA or EC.
    static func format(of der: UnsafeRawBufferPointer) throws(CryptoError) -> PrivateKeyFormat {
        var reader = Reader(bytes: der)
        let outer = try reader.element(tag: 0x30)
        if outer.upperBound != der.count { throw .privateKeyRefused(.trailingData(byteCount: der.count - outer.upperBound)) }
        var body = Reader(bytes: der, range: outer)
        let version = try body.element(tag: 0x02)
        switch body.peekTag() {
        case 0x30:
            var algorithm = Reader(bytes: der, range: try body.element(tag: 0x30))
            let oid = objectIdentifierText(der, try algorithm.element(tag: 0x06))
            guard oid == rsaEncryption || oid == ecPublicKey else { throw .privateKeyRefused(.unsupportedAlgorithm(oid: oid)) }
            return .pkcs8
        case 0x02:
            // PKCS#1 version 1 is multi-prime (otherPrimeInfos), which mbedTLS does not read.
            guard version.count == 1, der[version.lowerBound] == 0 else {
                throw .privateKeyRefused(.malformedDER("PKCS#1 version is not 0 (two-prime)"))
            }
            return .pkcs1
        case 0x04:
            return .sec1
        default:
            throw .privateKeyRefused(.malformedDER("not a PKCS#8, SEC1 or PKCS#1 private key"))
        }
    }

    /// Dotted text of an OBJECT IDENTIFIER's content bytes (X.690 §8.19).
    static func objectIdentifierText(_ der: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for i in range {
            let b = der[i]
            value = (value << 7) | UInt64(b & 0x7F)
            if b & 0x80 == 0 {
                if arcs.isEmpty {
                    let first = min(value / 40, 2)
                    arcs = [first, value - first * 40]
                } else {
                    arcs.append(value)
                }
                value = 0
            }
            if value > UInt64.max >> 8 { break }
        }
        return arcs.map { String($0) }.joined(separator: ".")
    }

    /// Reads definite-length TLVs (X.690 §8.1) inside `range`.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset: Int
        let limit: Int

        init(bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil) {
            self.bytes = bytes
            offset = range?.lowerBound ?? 0
            limit = range?.upperBound ?? bytes.count
        }

        func peekTag() -> UInt8? { offset < limit ? bytes[offset] : nil }

        /// The content range of the next element, which must have `tag`.
        mutating func element(tag: UInt8) throws(CryptoError) -> Range<Int> {
            guard offset + 2 <= limit else { throw .privateKeyRefused(.malformedDER("truncated")) }
            guard bytes[offset] == tag else {
                throw .privateKeyRefused(
                    .malformedDER("expected tag 0x\(String(tag, radix: 16)), found 0x\(String(bytes[offset], radix: 16))"))
            }
            var i = offset + 1
            var length = Int(bytes[i])
            i += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count >= 1, count <= 3, i + count <= limit else { throw .privateKeyRefused(.malformedDER("bad length")) }
                length = 0
                for _ in 0..<count { length = length << 8 | Int(bytes[i]); i += 1 }
            }
            guard length <= limit - i else { throw .privateKeyRefused(.malformedDER("length beyond the end")) }
            offset = i + length
            return i..<(i + length)
        }
    }
}
