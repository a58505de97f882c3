import Glibc

/// Reading the test process's environment, and deciding whether this run is CI.
public enum HostEnvironment {
    /// A snapshot of the current process environment.
    public static var current: [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let pair = String(cString: entry)
            if let eq = pair.firstIndex(of: "=") {
                result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            cursor += 1
        }
        return result
    }

    /// True when `CI` is `true` or `1`: then a missing requirement is a failure, not a skip.
    public static func isCI(_ environment: [String: String] = current) -> Bool {
        let value = environment["CI"]?.lowercased() ?? ""
        return value == "true" || value == "1"
    }
}
