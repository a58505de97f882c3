/// One command-line option: its spellings, whether it takes a value, and what `--help` says about it.
struct OptionSpec: Sendable {
    /// Canonical name without dashes, e.g. `profile`; parsed values are looked up by it.
    let key: String
    /// Every spelling, e.g. `["-v", "--verbose"]`.
    let names: [String]
    /// The placeholder shown in help (`URL`, `SECONDS`); nil for a flag without a value.
    let valueName: String?
    /// One line of help.
    let help: String
    /// The default as shown in help, or nil when there is none worth saying.
    let defaultDescription: String?
    /// Environment variables consulted when the option is absent, in order (shown in help).
    let environment: [String]

    /// True when the option takes a value.
    var takesValue: Bool { valueName != nil }

    /// A flag (no value).
    static func flag(_ key: String, _ names: [String]? = nil, help: String, default def: String? = nil) -> OptionSpec {
        OptionSpec(key: key, names: names ?? ["--" + key], valueName: nil, help: help, defaultDescription: def, environment: [])
    }

    /// An option that takes one value.
    static func value(
        _ key: String, _ valueName: String, help: String, default def: String? = nil,
        env: [String] = []
    ) -> OptionSpec {
        OptionSpec(key: key, names: ["--" + key], valueName: valueName, help: help, defaultDescription: def, environment: env)
    }
}
