import LatchkeyHTTP

/// The characters an OAuth token may contain: RFC 6749 Appendix A.12 and A.17 define access and
/// refresh tokens as `1*VSCHAR`, VSCHAR being %x20-7E. Anything else (CR, LF, ESC, DEL, C1, non-ASCII)
/// is a protocol violation: a token with CR LF would print as extra header lines from
/// `latchkey token --format header`, and one with ESC would drive the terminal that shows it.
package enum TokenCharacters {
    /// True when every byte of `token` is VSCHAR (an empty string is true; callers check presence).
    package static func areVSCHAR(_ token: String) -> Bool {
        token.utf8.allSatisfy(CharacterClass.isPrintable)
    }
}
