/// The commands, by the word typed on the command line: the one place a command's name (and its
/// aliases) is written. The catalog's specs, the parser's look-up and `CommandDispatch` switch over
/// it, so a command added here without a spec or a runner does not compile. The order is the one
/// `--help` lists them in.
enum CommandName: String, CaseIterable, Sendable {
    case login
    case token
    case proof
    case idToken = "id-token"
    case claims
    case status
    case refresh
    case logout
    case verify
    case discover
    case profiles
    case fetch
    case credential
    case exchange
    case config
    case register
    case completion
    case manual

    /// Other words accepted for the same command.
    var aliases: [String] {
        switch self {
        case .claims: ["whoami"]
        default: []
        }
    }

    /// The command called `word`, by its name or an alias. Only the names are compared: no
    /// command's spec is built (each costs its help text on the `latchkey token` hot path). Not
    /// `init(rawValue:)`, which for this many cases hashes every name into a cache on first use
    /// (10 K instructions of a cached `latchkey token`); `token` is found at the second name.
    init?(word: String) {
        guard
            let name = CommandName.allCases.first(where: { $0.rawValue == word })
                ?? CommandName.allCases.first(where: { $0.aliases.contains(word) })
        else { return nil }
        self = name
    }
}
