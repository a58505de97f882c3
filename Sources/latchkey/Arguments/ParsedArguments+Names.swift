/// Look-ups by a name as text, kept only until `RegisterCommand` reads its options by `OptionKey`
/// (it is being changed by other work; issue 33 §3). Remove this file then: an unknown name here
/// stops the program instead of failing to compile.
extension ParsedArguments {
    private static func key(_ name: String) -> OptionKey {
        guard let key = OptionKey(rawValue: name) else { preconditionFailure("no option '\(name)' in the catalog") }
        return key
    }

    func has(_ name: String) -> Bool { has(Self.key(name)) }
    func string(_ name: String) -> String? { string(Self.key(name)) }
    func choice(_ name: String, _ choices: [String], default fallback: String) throws(UsageError) -> String {
        try choice(Self.key(name), choices, default: fallback)
    }
    func required(_ name: String, why: String? = nil) throws(UsageError) -> String { try required(Self.key(name), why: why) }
}
