import FoundationEssentials
import Testing

@testable import LatchkeyJOSE

/// Locates ../shared/test-vectors relative to the package root and loads JSON files with our own parser.
enum TestVectors {
    /// <root>/Tests/LatchkeyJOSETests/TestVectors.swift → <root>.
    static let packageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// The shared test-vector folder, next to the package root.
    static var directory: String { packageRoot + "/../shared/test-vectors" }

    /// Loads `relative` as JSON, or returns nil after recording a failure (CI=true) or printing a visible
    /// skip reason (local runs).
    static func load(_ relative: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
        let path = directory + "/" + relative
        guard let data = FileManager.default.contents(atPath: path) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("test vectors missing at \(path) (CI=true requires them)", sourceLocation: sourceLocation)
            } else {
                print("SKIPPED: test vectors missing at \(path)")
            }
            return nil
        }
        do {
            var parser = JSONParser()
            parser.maxBytes = 16 << 20
            return try parser.parse(Array(data))
        } catch {
            Issue.record("cannot parse \(path): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Lists the files of a vector sub-folder (sorted), or nil when it is missing (handled like `load`).
    static func files(in relative: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String]? {
        let path = directory + "/" + relative
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("test vectors missing at \(path) (CI=true requires them)", sourceLocation: sourceLocation)
            } else {
                print("SKIPPED: test vectors missing at \(path)")
            }
            return nil
        }
        return names.filter { $0.hasSuffix(".json") }.sorted().map { relative + "/" + $0 }
    }
}

/// Tally of vector outcomes per category, printed at the end of each suite.
struct VectorTally {
    var agree: [String: Int] = [:]
    var skipped: [String: [String]] = [:]
    var disagree: [String] = []

    mutating func agreed(_ category: String) { agree[category, default: 0] += 1 }
    mutating func skip(_ category: String, _ reason: String) { skipped[category, default: []].append(reason) }

    func report(_ title: String) -> String {
        var lines = [
            "\(title): agree \(agree.values.reduce(0, +)), skipped \(skipped.values.map(\.count).reduce(0, +)), disagree \(disagree.count)"
        ]
        for k in agree.keys.sorted() { lines.append("  agree   \(k): \(agree[k]!)") }
        for k in skipped.keys.sorted() {
            var reasons: [String: Int] = [:]
            for r in skipped[k]! { reasons[r, default: 0] += 1 }
            for (r, n) in reasons.sorted(by: { $0.key < $1.key }) { lines.append("  skipped \(k): \(n) — \(r)") }
        }
        for d in disagree { lines.append("  DISAGREE \(d)") }
        return lines.joined(separator: "\n")
    }
}

/// All supported algorithms.
let allAlgorithms = Set(JWSAlgorithm.allCases)

/// Parses, then verifies; returns nil on success or the error.
func verifyCompact(_ compact: String, keys: JWKSet, allowed: Set<JWSAlgorithm> = allAlgorithms) -> JOSEError? {
    do {
        let jws = try JWS(compact: compact)
        _ = try JWSVerifier.verify(jws, keys: keys, allowedAlgorithms: allowed)
        return nil
    } catch {
        return error
    }
}
