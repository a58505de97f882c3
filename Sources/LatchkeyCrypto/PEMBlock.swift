internal import CMbedTLS

/// One PEM block (RFC 7468): its label and the DER it armours. Strict on purpose: exactly one
/// block, only whitespace around it, no RFC 1421 header lines, so that a file holding a key and
/// something else (a certificate, a second key) is refused rather than half-read.
/// The DER is decoded straight into `SecretBytes`; no unzeroed copy of it is made.
struct PEMBlock {
    /// The label between `-----BEGIN ` and `-----`.
    let label: String
    /// The decoded body.
    let der: SecretBytes

    private static let begin = Array("-----BEGIN ".utf8)
    private static let end = Array("-----END ".utf8)
    private static let dashes = Array("-----".utf8)
    private static let encryptedHeader = Array("ENCRYPTED".utf8)

    /// Parses `text`, which must be the whole input.
    init(parsing text: UnsafeRawBufferPointer) throws(CryptoError) {
        let bytes = UnsafeBufferPointer(start: text.baseAddress?.assumingMemoryBound(to: UInt8.self), count: text.count)
        var i = Self.skipWhitespace(bytes, from: 0)
        guard Self.hasPrefix(bytes, Self.begin, at: i) else {
            if let found = Self.find(bytes, Self.begin, from: i) {
                throw .privateKeyRefused(.leadingData(byteCount: found - i))
            }
            throw .privateKeyRefused(.notPEM)
        }
        i += Self.begin.count
        guard let labelEnd = Self.find(bytes, Self.dashes, from: i) else {
            throw .privateKeyRefused(.malformedPEM("BEGIN line does not end in -----"))
        }
        let labelBytes = UnsafeBufferPointer(rebasing: bytes[i..<labelEnd])
        guard labelBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw .privateKeyRefused(.malformedPEM("BEGIN line holds a non-printable character"))
        }
        let label = String(decoding: labelBytes, as: UTF8.self)
        i = labelEnd + Self.dashes.count
        guard let bodyStart = Self.endOfLine(bytes, at: i) else {
            throw .privateKeyRefused(.malformedPEM("text after the BEGIN line's -----"))
        }
        guard let bodyEnd = Self.find(bytes, Self.end, from: bodyStart) else {
            throw .privateKeyRefused(.malformedPEM("no END line"))
        }
        let afterEnd = bodyEnd + Self.end.count
        let closing = Array(label.utf8) + Self.dashes
        guard Self.hasPrefix(bytes, closing, at: afterEnd) else {
            throw .privateKeyRefused(.malformedPEM("END line does not match BEGIN \(label)"))
        }
        let rest = afterEnd + closing.count
        let tail = Self.skipWhitespace(bytes, from: rest)
        if tail < bytes.count { throw .privateKeyRefused(.trailingData(byteCount: bytes.count - tail)) }

        let body = UnsafeBufferPointer(rebasing: bytes[bodyStart..<bodyEnd])
        // RFC 1421 headers (Proc-Type, DEK-Info) are the only place a ':' can appear.
        if body.contains(UInt8(ascii: ":")) {
            if Self.find(body, Self.encryptedHeader, from: 0) != nil { throw .privateKeyRefused(.encrypted(label: label)) }
            throw .privateKeyRefused(.malformedPEM("header lines are not accepted"))
        }
        if label == "ENCRYPTED PRIVATE KEY" { throw .privateKeyRefused(.encrypted(label: label)) }
        guard PrivateKeyFormat(pemLabel: label) != nil else { throw .privateKeyRefused(.unsupportedLabel(label)) }
        self.label = label
        self.der = try Self.decode(body)
    }

    /// Base64 through mbedTLS (constant-time table lookups since 2.26): one pass for the length,
    /// one into the secret buffer.
    private static func decode(_ body: UnsafeBufferPointer<UInt8>) throws(CryptoError) -> SecretBytes {
        var needed = 0
        let sizing = mbedtls_base64_decode(nil, 0, &needed, body.baseAddress, body.count)
        guard sizing == MBEDTLS_ERR_BASE64_BUFFER_TOO_SMALL || sizing == 0 else {
            throw .privateKeyRefused(.malformedPEM("invalid base64 body"))
        }
        guard needed > 0 else { throw .privateKeyRefused(.malformedPEM("empty body")) }
        return try SecretBytes(count: needed) { (out) throws(CryptoError) in
            var written = 0
            let code = mbedtls_base64_decode(
                out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &written,
                body.baseAddress, body.count)
            guard code == 0, written == out.count else { throw .privateKeyRefused(.malformedPEM("invalid base64 body")) }
        }
    }

    private static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        while i < bytes.count, isWhitespace(bytes[i]) { i += 1 }
        return i
    }

    /// The index after the line break at `i` (spaces/tabs may precede it), or nil if other text does.
    private static func endOfLine(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var i = start
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        if i < bytes.count, bytes[i] == 0x0D { i += 1 }
        guard i < bytes.count, bytes[i] == 0x0A else { return nil }
        return i + 1
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8], at i: Int) -> Bool {
        guard i + prefix.count <= bytes.count else { return false }
        for k in 0..<prefix.count where bytes[i + k] != prefix[k] { return false }
        return true
    }

    private static func find(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var i = start
        while i + needle.count <= bytes.count {
            if hasPrefix(bytes, needle, at: i) { return i }
            i += 1
        }
        return nil
    }
}
