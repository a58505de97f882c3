import Glibc

/// The environment variables the tool reads, behind a lookup so tests can supply their own.
struct ProcessEnvironment: Sendable {
    /// Returns the variable's value, or nil when unset.
    let lookup: @Sendable (String) -> String?

    /// The real process environment.
    static let process = ProcessEnvironment { name in
        guard let raw = getenv(name) else { return nil }
        return String(cString: raw)
    }

    /// A fixed environment (tests).
    static func fixed(_ values: [String: String]) -> ProcessEnvironment {
        ProcessEnvironment { values[$0] }
    }

    /// The value of `name`, treating an empty value as unset (as shells commonly do).
    subscript(_ name: String) -> String? {
        guard let value = lookup(name), !value.isEmpty else { return nil }
        return value
    }
}
