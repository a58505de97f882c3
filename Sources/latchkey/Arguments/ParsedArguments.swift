/// The command line after parsing: which command, which options with which values, and the
/// positional arguments. Values are still text; commands read them by `OptionKey` (never by a
/// string, so only options the catalog declares can be asked for) and convert them with the typed
/// accessors, which throw `UsageError` (exit code 2) for bad values.
struct ParsedArguments: Sendable {
    /// The command, or nil when none was given (then `--help`/`--version` or the tool's help).
    var command: CommandSpec?
    /// Every option occurrence in order, as (key, value, order); the last occurrence of a key is its
    /// value, and its order says which of two keys came later (so `--qr --no-qr` resolves to the
    /// later one). Flags have the value `""`. One list, not a `Dictionary` nor two lists of
    /// tuples: a command line has a handful of options, and each distinct collection type costs
    /// the runtime a metadata instantiation on the `latchkey token` hot path (docs/performance.md).
    private(set) var entries: [Entry] = []
    /// Positional arguments in order (after `--` everything is positional).
    var positionals: [String] = []

    /// One occurrence of an option.
    struct Entry: Sendable {
        let key: OptionKey
        let value: String
        let order: Int
    }

    /// Records `key` = `value` as the `order`-th option seen; a later occurrence wins.
    mutating func record(_ key: OptionKey, _ value: String, order: Int) {
        entries.append(Entry(key: key, value: value, order: order))
    }

    /// The value of `key` (its last occurrence), or nil.
    private func value(_ key: OptionKey) -> String? { entries.last { $0.key == key }?.value }

    /// True when the flag or option `key` was given.
    func has(_ key: OptionKey) -> Bool { value(key) != nil }

    /// Every value given for the repeatable option `key`, in order.
    func all(_ key: OptionKey) -> [String] { entries.filter { $0.key == key }.map(\.value) }

    /// The text value of `key`, or nil.
    func string(_ key: OptionKey) -> String? { value(key) }

    /// True when `key` was given after `other` (or `other` was not given at all).
    func isLater(_ key: OptionKey, than other: OptionKey) -> Bool {
        guard let a = entries.last(where: { $0.key == key })?.order else { return false }
        guard let b = entries.last(where: { $0.key == other })?.order else { return true }
        return a > b
    }

    /// The value of `key` as a non-negative integer, or `fallback` when absent.
    func nonNegativeInteger(_ key: OptionKey, default fallback: Int) throws(UsageError) -> Int {
        guard let text = value(key) else { return fallback }
        guard let n = Int(text), n >= 0 else {
            throw UsageError("\(key.longName) needs a whole number of seconds ≥ 0, got '\(text)'", command: command?.id)
        }
        return n
    }

    /// The value of `key` as a positive number of seconds, or nil when absent.
    func positiveSeconds(_ key: OptionKey) throws(UsageError) -> Double? {
        guard let text = value(key) else { return nil }
        guard let n = Double(text), n > 0, n.isFinite else {
            throw UsageError("\(key.longName) needs a positive number of seconds, got '\(text)'", command: command?.id)
        }
        return n
    }

    /// The value of `key`, which must be one of `choices`; `fallback` when absent.
    func choice(_ key: OptionKey, _ choices: [String], default fallback: String) throws(UsageError) -> String {
        guard let text = value(key) else { return fallback }
        guard choices.contains(text) else {
            throw UsageError(
                "\(key.longName) must be one of \(choices.joined(separator: ", ")), got '\(text)'",
                command: command?.id)
        }
        return text
    }

    /// The value of `key`, which the command cannot do without.
    func required(_ key: OptionKey, why: String? = nil) throws(UsageError) -> String {
        guard let text = value(key), !text.isEmpty else {
            throw UsageError("\(key.longName) is required" + (why.map { " \($0)" } ?? ""), command: command?.id)
        }
        return text
    }
}
