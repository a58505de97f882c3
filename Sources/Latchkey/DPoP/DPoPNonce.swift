import LatchkeyHTTP

/// The grammar and size of a server's `DPoP-Nonce` (RFC 9449 §8.1: `nonce = 1*NQCHAR`).
///
/// A nonce is echoed in every proof and kept in the token file, so anything else a server sends is
/// neither stored nor sent: unchecked, one 8 KiB header of invalid UTF-8 grew the file by ~24 KB and
/// made the save after a rotated refresh token fail for lack of the space reserved for it.
package enum DPoPNonce {
    /// The longest nonce kept. Servers send a few dozen bytes; 512 leaves room for a sealed value.
    package static let maximumLength = 512

    /// True for `1*NQCHAR` (%x21 / %x23-5B / %x5D-7E) of at most `maximumLength` bytes.
    package static func isValid(_ nonce: String) -> Bool {
        let bytes = nonce.utf8
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        return bytes.allSatisfy(CharacterClass.isNonQuoteVisible)
    }
}
