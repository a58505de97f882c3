import LatchkeyHTTP

/// A request from git to a credential helper (`git help credential`): `name=value` lines, ended by
/// a blank line or the end of input. The helper hands a token to git, so the reader is strict: a
/// line git would never send is refused, never guessed at.
package struct CredentialRequest: Sendable, Equatable {
    /// The longest line accepted, in bytes (git's own lines are far shorter; a token is a value in
    /// git's answer, never in a request worth this much).
    package static let maxLineBytes = 8192
    /// The most lines accepted.
    package static let maxLines = 256
    /// The most bytes a reader should take from its input before giving up.
    package static let maxBytes = 65_536

    /// Every attribute in input order; names ending in `[]` may repeat.
    package var attributes: [(name: String, value: String)]

    package static func == (a: CredentialRequest, b: CredentialRequest) -> Bool {
        a.attributes.map(\.name) == b.attributes.map(\.name) && a.attributes.map(\.value) == b.attributes.map(\.value)
    }

    /// The last value of `name` (git: a later value replaces an earlier one).
    package func value(_ name: String) -> String? { attributes.last { $0.name == name }?.value }

    /// `protocol`, from a `protocol=` line or a `url=` line, whichever came last.
    package var scheme: String? { value("protocol") }
    /// `host`, with its `:port` when git sends one.
    package var host: String? { value("host") }

    /// True when the request is for `protocol=https` and exactly `credentialHost` (compared without
    /// case, since DNS names are case-insensitive; a port must match too).
    package func isHTTPS(forHost credentialHost: String) -> Bool {
        guard scheme == "https", let host else { return false }
        return ASCIICase.equal(host, credentialHost)
    }

    /// Reads `bytes` up to the first blank line (or their end). A trailing CR is dropped from each
    /// line, as git itself does. Unknown attribute names are kept and ignored, as git asks of helpers.
    package static func parse(_ bytes: [UInt8]) throws(CredentialRequestError) -> CredentialRequest {
        if bytes.count > maxBytes { throw .tooLarge(limit: maxBytes) }
        var attributes: [(name: String, value: String)] = []
        var start = 0
        var lineNumber = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            var line = bytes[start..<end]
            start = end + 1
            if line.last == 0x0D { line = line.dropLast() }
            if line.isEmpty { break }
            if lineNumber > maxLines { throw .tooLarge(limit: maxLines) }
            if line.count > maxLineBytes { throw .lineTooLong(line: lineNumber, limit: maxLineBytes) }
            if line.contains(0) { throw .nulByte(line: lineNumber) }
            guard let eq = line.firstIndex(of: UInt8(ascii: "=")) else { throw .missingSeparator(line: lineNumber) }
            let nameBytes = line[line.startIndex..<eq]
            guard isName(nameBytes) else { throw .badName(line: lineNumber) }
            let valueBytes = Array(line[(eq + 1)...])
            guard let value = String(validating: valueBytes, as: UTF8.self),
                !CharacterClass.containsControl(value)
            else { throw .badCharacters(line: lineNumber) }
            let name = String(decoding: nameBytes, as: UTF8.self)
            if name == "url" {
                guard let parts = splitURL(value) else { throw .badURL(line: lineNumber) }
                attributes.append(("protocol", parts.scheme))
                attributes.append(("host", parts.host))
                if let path = parts.path { attributes.append(("path", path)) }
                if let user = parts.user { attributes.append(("username", user)) }
            } else {
                attributes.append((name, value))
            }
        }
        return CredentialRequest(attributes: attributes)
    }

    /// Makes a request from attributes, e.g. in tests.
    package init(attributes: [(name: String, value: String)]) { self.attributes = attributes }

    /// `[a-z0-9_-]+`, optionally ending in `[]` (git's multi-valued attributes such as `wwwauth[]`).
    static func isName(_ bytes: ArraySlice<UInt8>) -> Bool {
        var body = bytes
        if body.count >= 2 && body.suffix(2).elementsEqual([UInt8(ascii: "["), UInt8(ascii: "]")]) { body = body.dropLast(2) }
        guard !body.isEmpty else { return false }
        return body.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
    }

    /// `scheme://[user@]host[/path]`, kept percent-encoded as sent; nil when there is no scheme or no host.
    static func splitURL(_ url: String) -> (scheme: String, user: String?, host: String, path: String?)? {
        let u = Array(url.utf8)
        var i = 0
        while i < u.count && u[i] != UInt8(ascii: ":") { i += 1 }
        guard i > 0, i + 2 < u.count, u[i + 1] == UInt8(ascii: "/"), u[i + 2] == UInt8(ascii: "/") else { return nil }
        let scheme = String(decoding: u[0..<i], as: UTF8.self)
        guard
            scheme.utf8.allSatisfy({
                ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D
                    || $0 == 0x2E
            })
        else { return nil }
        var rest = u[(i + 3)...]
        var path: String?
        if let slash = rest.firstIndex(of: UInt8(ascii: "/")) {
            let p = rest[(slash + 1)...]
            path = p.isEmpty ? nil : String(decoding: p, as: UTF8.self)
            rest = rest[rest.startIndex..<slash]
        }
        var user: String?
        if let at = rest.lastIndex(of: UInt8(ascii: "@")) {
            user = String(decoding: rest[rest.startIndex..<at], as: UTF8.self)
            rest = rest[(at + 1)...]
        }
        guard !rest.isEmpty else { return nil }
        return (ASCIICase.lowercased(scheme), user, String(decoding: rest, as: UTF8.self), path)
    }
}
