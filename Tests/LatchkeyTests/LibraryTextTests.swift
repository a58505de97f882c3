import Glibc
import LatchkeyTestSupport
import Testing

/// What counts as presentation in library text: a command-line option (`--name`), one of the CLI's
/// `LATCHKEY_` variables, an exit code, or a `latchkey …` command to run. The CLI adds these itself.
enum LibraryText {
    static func presentationLeaks(in text: String) -> [String] {
        let b = Array(text.utf8)
        var found: [String] = []
        func has(_ s: String, at i: Int) -> Bool {
            let p = Array(s.utf8)
            return i + p.count <= b.count && Array(b[i..<(i + p.count)]) == p
        }
        for i in b.indices {
            if has("--", at: i), i + 2 < b.count, (97...122).contains(b[i + 2]),
                i == 0 || b[i - 1] == 32 || b[i - 1] == 40 || b[i - 1] == 96
            {
                found.append("option at \(i)")
            }
            if has("LATCHKEY_", at: i) { found.append("LATCHKEY_ variable at \(i)") }
            if has("exit code", at: i) || (has("exit ", at: i) && i + 5 < b.count && (48...57).contains(b[i + 5])) {
                found.append("exit code at \(i)")
            }
            if has("`latchkey ", at: i) || has("run latchkey ", at: i) { found.append("command at \(i)") }
        }
        return found
    }

    /// The string literals on each line of Swift source, skipping comment lines.
    static func literals(inSource source: String) -> [(line: Int, text: String)] {
        var out: [(Int, String)] = []
        for (n, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("//") { continue }
            var inString = false
            var escaped = false
            var current = ""
            for c in line {
                if inString {
                    if escaped { escaped = false; current.append(c); continue }
                    if c == "\\" { escaped = true; current.append(c); continue }
                    if c == "\"" { out.append((n + 1, current)); current = ""; inString = false; continue }
                    current.append(c)
                } else if c == "\"" {
                    inString = true
                }
            }
        }
        return out
    }
}

@Suite struct LibraryTextTests {
    /// Every library module's source, read from the package (Sources/ minus the CLI and C shims).
    static func librarySources() -> [(path: String, text: String)] {
        let root = PackagePaths.root()
        var files: [(String, String)] = []
        func walk(_ dir: String) {
            guard let d = opendir(dir) else { return }
            defer { closedir(d) }
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix(".") { continue }
                let path = dir + "/" + name
                if e.pointee.d_type == UInt8(DT_DIR) {
                    walk(path)
                } else if name.hasSuffix(".swift"), let text = FileText.read(path) {
                    files.append((path, text))
                }
            }
        }
        for module in [
            "Latchkey", "LatchkeyCrypto", "LatchkeyHTTP", "LatchkeyJOSE", "LatchkeyQR", "LatchkeyTesting",
            "LatchkeyFoundationCompat"
        ] {
            walk(root + "/Sources/" + module)
        }
        return files
    }

    @Test func theRuleFindsWhatItMustFind() {
        #expect(!LibraryText.presentationLeaks(in: "needs a secret (--client-secret-file)").isEmpty)
        #expect(!LibraryText.presentationLeaks(in: "set LATCHKEY_PASSPHRASE").isEmpty)
        #expect(!LibraryText.presentationLeaks(in: "fails with exit 7").isEmpty)
        #expect(!LibraryText.presentationLeaks(in: "run `latchkey login`").isEmpty)
        #expect(LibraryText.presentationLeaks(in: "the provider's metadata has no token_endpoint").isEmpty)
        #expect(
            LibraryText.literals(inSource: "let a = \"x\\\"y\" + \"z\" // \"not\"\n// \"comment\"").map(\.text) == ["x\\\"y", "z", "not"])
    }

    @Test func noLibraryStringNamesAnOptionVariableOrExitCode() throws {
        let sources = Self.librarySources()
        #expect(sources.count > 50, "found only \(sources.count) library sources")
        var leaks: [String] = []
        for (path, text) in sources {
            for (line, literal) in LibraryText.literals(inSource: text) where !LibraryText.presentationLeaks(in: literal).isEmpty {
                leaks.append("\(path):\(line): \"\(literal)\"")
            }
        }
        #expect(leaks.isEmpty, "\(leaks.joined(separator: "\n"))")
    }
}
