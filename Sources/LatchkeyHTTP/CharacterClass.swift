/// The character classes every parser and check of the package tests against, written once (they
/// were hand-written ranges in about twenty places, each a chance to be off by one). Byte classes
/// are ASCII (RFC 5234 core rules, RFC 9110's field text); a UTF-8 byte of a non-ASCII character is
/// never in an ASCII class, so testing the UTF-8 bytes of a string tests its characters.
package enum CharacterClass {
    /// RFC 5234 VCHAR, 0x21–0x7E: visible ASCII, no space. OAuth's tokens, codes, URIs and
    /// scope tokens are made of these.
    @inline(__always)
    package static func isVisible(_ b: UInt8) -> Bool { b >= 0x21 && b <= 0x7E }

    /// VCHAR or SP, 0x20–0x7E (RFC 6749 Appendix A's NQSCHAR and its kin).
    @inline(__always)
    package static func isPrintable(_ b: UInt8) -> Bool { b >= 0x20 && b <= 0x7E }

    /// RFC 9110 §5.5 field text (field-vchar, SP, HTAB, obs-text): anything but a control other
    /// than HTAB. Header values, reason phrases and quoted strings.
    @inline(__always)
    package static func isFieldText(_ b: UInt8) -> Bool { b == 0x09 || (b >= 0x20 && b != 0x7F) }

    /// RFC 9110 OWS: SP or HTAB.
    @inline(__always)
    package static func isOptionalWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// SP, HTAB, CR or LF: what a blank body or a key file's padding is made of.
    @inline(__always)
    package static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    /// RFC 9449 §8.1 NQCHAR without SP: 0x21, 0x23–0x5B, 0x5D–0x7E (VCHAR but `"` and `\`).
    @inline(__always)
    package static func isNonQuoteVisible(_ b: UInt8) -> Bool { isVisible(b) && b != 0x22 && b != 0x5C }

    /// A C0 control or DEL (the ASCII controls).
    @inline(__always)
    package static func isASCIIControl(_ s: Unicode.Scalar) -> Bool { s.value < 0x20 || s.value == 0x7F }

    /// A C0 or C1 control or DEL: what a terminal or a line-based protocol may act on.
    @inline(__always)
    package static func isControl(_ s: Unicode.Scalar) -> Bool { isASCIIControl(s) || (0x80...0x9F).contains(s.value) }

    /// True when every character of `text` is VCHAR (an empty text is, too: callers that need
    /// one character say so).
    package static func isVisibleASCII(_ text: some StringProtocol) -> Bool { text.utf8.allSatisfy(isVisible) }

    /// True when `text` holds an ASCII control (C0 or DEL).
    package static func containsASCIIControl(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: isASCIIControl)
    }

    /// True when `text` holds a C0 or C1 control or DEL.
    package static func containsControl(_ text: some StringProtocol) -> Bool { text.unicodeScalars.contains(where: isControl) }

    /// True when every byte of `bytes` is SP, HTAB, CR or LF (an empty body is blank).
    package static func isBlank(_ bytes: some Sequence<UInt8>) -> Bool { bytes.allSatisfy(isWhitespace) }
}
