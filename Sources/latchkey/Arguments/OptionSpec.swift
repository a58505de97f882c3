/// One command-line option: its spellings, whether it takes a value, and what `--help` says about it.
struct OptionSpec: Sendable {
    /// The option's key; parsed values are looked up by it.
    let key: OptionKey
    /// Every spelling, e.g. `["-v", "--verbose"]`: the long one is always `key.longName`.
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

    /// A flag (no value), spelt `--key` and, when given, `short` (`-v`).
    static func flag(_ key: OptionKey, short: String? = nil, help: String, default def: String? = nil) -> OptionSpec {
        OptionSpec(key: key, names: spellings(key, short), valueName: nil, help: help, defaultDescription: def, environment: [])
    }

    /// An option that takes one value, spelt `--key` and, when given, `short` (`-X`).
    static func value(
        _ key: OptionKey, short: String? = nil, _ valueName: String, help: String, default def: String? = nil,
        env: [String] = []
    ) -> OptionSpec {
        OptionSpec(key: key, names: spellings(key, short), valueName: valueName, help: help, defaultDescription: def, environment: env)
    }

    /// The short spelling first, as `--help` lists them (`-v, --verbose`).
    private static func spellings(_ key: OptionKey, _ short: String?) -> [String] {
        short.map { [$0, key.longName] } ?? [key.longName]
    }
}
