/// What an option's value is, as shell completion and the manual page read it. Derived from the
/// catalog's placeholder (`valueName`), so a new option or a new choice needs no second edit:
/// `device|browser|paste` is a fixed set, `FILE` a path, `DIR` a folder.
enum OptionValueKind: Sendable, Equatable {
    /// A flag: no value.
    case none
    /// One of these words; a word ending in `:` (`file:` of `file:PATH`) is a prefix to continue.
    case choices([String])
    /// A profile name (the profiles of the state directory).
    case profile
    /// A file path (`FILE`, `FILE|URL`, `FILE.svg|FILE.png`, `@FILE`).
    case file
    /// A directory path.
    case directory
    /// Free text: nothing to offer.
    case text
}

extension OptionSpec {
    /// The kind of value the option takes.
    var valueKind: OptionValueKind {
        guard let valueName else { return .none }
        if key == .profile { return .profile }
        if valueName == "DIR" { return .directory }
        let parts = valueName.split(separator: "|", omittingEmptySubsequences: false)
        if parts.contains(where: { $0.hasPrefix("FILE") || $0.hasPrefix("@FILE") }) { return .file }
        let words = parts.compactMap(OptionValueKind.choiceWord)
        return words.count == parts.count ? .choices(words) : .text
    }
}

extension OptionValueKind {
    /// `part` as a fixed word (lower case, digits, `-`, `_`, `+`), or its prefix when it is
    /// `word:PLACEHOLDER`; nil for a placeholder (`URL`, `SECONDS`, `ES256`, `…`).
    static func choiceWord(_ part: Substring) -> String? {
        var word = ""
        for scalar in part.unicodeScalars {
            switch scalar {
            case "a"..."z", "0"..."9", "-", "_", "+": word.unicodeScalars.append(scalar)
            case ":" where !word.isEmpty: return word + ":"
            default: return nil
            }
        }
        return word.isEmpty ? nil : word
    }

    /// The fixed words of a command's positional usage (`get|store|erase`, `get|set|unset KEY
    /// [VALUE] | list`): the lower-case words, placeholders left out.
    static func positionalWords(_ usage: String) -> [String] {
        usage.split(whereSeparator: { $0 == " " || $0 == "|" }).compactMap { part in
            choiceWord(part).flatMap { $0.hasSuffix(":") ? nil : $0 }
        }
    }
}
