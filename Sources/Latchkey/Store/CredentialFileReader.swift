import LatchkeyCrypto
import LatchkeyHTTP

/// Files a person names that hold one bearer credential on one line: a subject or actor token
/// for a token exchange (RFC 8693), an assertion for the JWT bearer grant or for client
/// authentication (RFC 7523). One rule for all of them (cli.md, "`exchange`"): the key-file rules
/// of `OwnerOnlyFile` for the file itself (a regular file owned by the effective user with no group
/// or other bits; a symbolic link followed, since the person chose the path; at most `limit`
/// bytes), one token on one line with one trailing newline (`\n` or `\r\n`) ignored, and, where a
/// JWT is required, three base64url parts. Read at each use, never copied; the bytes read are
/// zeroed once the value is made.
package enum CredentialFileReader {
    /// Larger than any token or assertion a provider issues (a JWT-SVID, a Kubernetes projected
    /// token are a few KiB).
    package static let limit = 64 * 1024

    /// What the file must hold.
    package enum Content: Sendable, Equatable {
        /// Any token (opaque or not): printable ASCII without spaces on one line.
        case token
        /// A compact JWS/JWT: three base64url parts separated by dots (the signature may be empty).
        case jwt
    }

    /// The one line the file at `path` holds, as `content` requires.
    package static func read(_ path: String, as content: Content, limit: Int = limit) throws(CredentialFileError) -> String {
        var bytes: [UInt8]
        do { bytes = try OwnerOnlyFile.read(path, limit: limit) } catch {
            if case .io(_, _, let code) = error { throw .unreadable(path: path, errno: code) }
            throw .refused(error)
        }
        defer { bytes.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        var count = bytes.count
        if count > 0, bytes[count - 1] == 0x0A { count -= 1 }
        if count > 0, bytes[count - 1] == 0x0D { count -= 1 }
        guard count > 0 else { throw .empty(path: path) }
        let line = bytes[0..<count]
        if line.contains(0x0A) || line.contains(0x0D) { throw .moreThanOneLine(path: path) }
        // RFC 6749 VSCHAR without the space: a token is sent as a form value and a header value.
        guard line.allSatisfy(CharacterClass.isVisible) else { throw .notAToken(path: path) }
        if content == .jwt, !Self.isCompactJWT(line) { throw .notAJWT(path: path) }
        return String(decoding: line, as: UTF8.self)
    }

    /// True for `header.payload.signature`, each part base64url without padding (the signature may
    /// be empty, as in an unsecured JWT; the header and payload may not).
    package static func isCompactJWT<Bytes: Collection>(_ text: Bytes) -> Bool where Bytes.Element == UInt8 {
        var parts = 1
        var length = 0
        for byte in text {
            if byte == 0x2E {
                if length == 0 { return false }
                parts += 1
                length = 0
                continue
            }
            let base64url =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F
            guard base64url else { return false }
            length += 1
        }
        return parts == 3
    }
}

/// Why a credential file (`CredentialFileReader`) cannot be used. Each case names the file; none holds
/// its content.
package enum CredentialFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read (`errno`: ENOENT when it does not exist).
    case unreadable(path: String, errno: Int32)
    /// The file breaks the key-file rules: another owner, group or other bits, not a regular file,
    /// larger than the limit (`TokenStoreError` names which and the path).
    case refused(TokenStoreError)
    /// Nothing but a newline.
    case empty(path: String)
    /// A second line after the token.
    case moreThanOneLine(path: String)
    /// A space, a control character or a byte outside ASCII in the token.
    case notAToken(path: String)
    /// Not a compact JWT where one is required.
    case notAJWT(path: String)

    /// The file concerned.
    package var path: String {
        switch self {
        case .unreadable(let path, _), .empty(let path), .moreThanOneLine(let path), .notAToken(let path), .notAJWT(let path):
            return path
        case .refused(let error):
            switch error {
            case .unsafePermissions(let path, _), .wrongOwner(let path, _, _), .tooLarge(let path, _, _), .io(let path, _, _):
                return path
            default: return ""
            }
        }
    }

    /// One line naming the file and what is wrong with it.
    package var description: String {
        switch self {
        case .unreadable(let path, let code): return "cannot read \(path) (errno \(code))"
        case .refused(let error): return error.description
        case .empty(let path): return "\(path) is empty"
        case .moreThanOneLine(let path): return "\(path) holds more than one line (one token on one line is expected)"
        case .notAToken(let path): return "\(path) does not hold a token (spaces, control characters or non-ASCII bytes in it)"
        case .notAJWT(let path): return "\(path) does not hold a JWT (three base64url parts separated by dots)"
        }
    }
}
