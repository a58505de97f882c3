/// What a private key file must never leak into: `--verbose` logs, stderr, stdout or a profile.
/// The needles are the PEM body lines, 16-character windows of its base64 (standard and URL
/// alphabets, every 8 characters), and the compact header of a client assertion, which begins
/// every assertion Latchkey signs.
public struct KeyLeakScan: Sendable {
    /// The strings that must not appear.
    public let needles: [String]

    /// Needles for the PEM text `pem` and the assertion headers of `assertionTypes`.
    public init(pem: String, assertionHeaders: [String] = []) {
        let lines = pem.split(separator: "\n").map { String($0).trimmingSpaces }.filter { !$0.isEmpty && !$0.hasPrefix("-----") }
        let body = Array(lines.joined())
        var found = Set(lines.filter { $0.count >= 16 })
        var start = 0
        while start + 16 <= body.count {
            let window = String(body[start..<(start + 16)])
            found.insert(window)
            found.insert(String(window.map { $0 == "+" ? "-" : ($0 == "/" ? "_" : $0) }))
            start += 8
        }
        needles = found.sorted() + assertionHeaders
    }

    /// The needles found in `text` (empty when nothing leaked).
    public func leaks(in text: String) -> [String] { needles.filter { text.contains($0) } }

    /// The base64url of `{"alg":ALG,"typ":TYP}`, how Latchkey's assertions begin (no kid).
    public static func assertionHeader(alg: String, typ: String = "client-authentication+jwt") -> String {
        base64URL(Array(#"{"alg":"\#(alg)","typ":"\#(typ)"}"#.utf8))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var out = ""
        var i = 0
        while i < bytes.count {
            let n = bytes.count - i
            let b0 = Int(bytes[i]), b1 = n > 1 ? Int(bytes[i + 1]) : 0, b2 = n > 2 ? Int(bytes[i + 2]) : 0
            out.append(table[b0 >> 2])
            out.append(table[((b0 & 3) << 4) | (b1 >> 4)])
            if n > 1 { out.append(table[((b1 & 15) << 2) | (b2 >> 6)]) }
            if n > 2 { out.append(table[b2 & 63]) }
            i += 3
        }
        return out
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\r" }.reversed())
    }
}
