import Glibc

/// The environment variables the tool reads, behind a lookup so tests can supply their own.
struct ProcessEnvironment: Sendable {
    /// Returns the variable's value, or nil when unset.
    let lookup: @Sendable (String) -> String?
    /// Every variable, for library calls that take the whole environment (proxy, CA bundle).
    /// Built only when asked, so the `token` hot path never copies the environment.
    let snapshot: @Sendable () -> [String: String]

    /// Variables that hold secrets. They are taken out of the process environment when it is
    /// first read, so children (`--open`'s `xdg-open` and whatever it starts) never inherit them.
    static let secretNames = ["LATCHKEY_PASSPHRASE", "LATCHKEY_CLIENT_SECRET"]

    /// The real process environment. Building it (first thing in `main`, before other threads
    /// exist: `setenv`/`unsetenv` are not thread-safe) takes the secrets out of it.
    static let process = takingSecrets()

    /// The process environment with `secretNames` moved out of it: each value is kept here, its
    /// bytes in the environment block are overwritten (so `/proc/PID/environ` no longer shows
    /// them), and the variable is removed (`unsetenv`), so `environ` no longer has it.
    /// `lookup` still answers for them; `snapshot` (proxy and CA settings) does not carry them.
    static func takingSecrets() -> ProcessEnvironment {
        var secrets: [String: String] = [:]
        for name in secretNames {
            guard let raw = getenv(name) else { continue }
            secrets[name] = String(cString: raw)
            explicit_bzero(raw, strlen(raw))
            unsetenv(name)
        }
        return ProcessEnvironment(
            lookup: { [secrets] name in
                if let secret = secrets[name] { return secret }
                guard let raw = getenv(name) else { return nil }
                return String(cString: raw)
            },
            snapshot: {
                var all: [String: String] = [:]
                var cursor = environ
                while let entry = cursor.pointee {
                    let text = String(cString: entry)
                    if let eq = text.firstIndex(of: "=") {
                        all[String(text[..<eq])] = String(text[text.index(after: eq)...])
                    }
                    cursor += 1
                }
                return all
            })
    }

    /// A fixed environment (tests).
    static func fixed(_ values: [String: String]) -> ProcessEnvironment {
        ProcessEnvironment(lookup: { values[$0] }, snapshot: { values })
    }

    /// Only the named variables that are set: enough for the store's state-directory and
    /// credential lookups without copying the whole environment.
    func subset(_ names: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for name in names { if let value = lookup(name) { result[name] = value } }
        return result
    }

    /// The value of `name`, treating an empty value as unset (as shells commonly do).
    subscript(_ name: String) -> String? {
        guard let value = lookup(name), !value.isEmpty else { return nil }
        return value
    }
}
