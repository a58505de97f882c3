import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey config get|set|unset KEY [VALUE]` and `config list`: changes what a profile remembers
/// without a new sign-in, for the settings that do not change the sign-in (cli.md). Values are
/// checked as `login` checks them; any other login option needs a new login, since the tokens
/// were issued for it.
enum ConfigCommand {
    /// The settings `config` may change, as `login` names their options: the library's table.
    static var keys: [String] { RememberedSetting.all.map(\.name) }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let words = context.arguments.positionals
        guard let action = words.first else {
            throw UsageError("config needs get, set, unset or list", command: .config)
        }
        let access = ProfileAccess(context)
        switch action {
        case "list":
            guard words.count == 1 else { throw UsageError("config list takes no KEY", command: .config) }
            let settings = try access.requireSettings()
            guard case .object(let document) = settings.json else { return 0 }
            if context.globals.json {
                context.console.outLine(JSONValue.object(document).jsonText)
            } else {
                // The profile file holds no secret, so every member can be shown.
                for (name, value) in document.members {
                    context.console.out(TerminalText.singleLine(name + " = " + (value.stringValue ?? value.jsonText)) + "\n")
                }
            }
            return 0
        case "get":
            guard words.count == 2 else { throw UsageError("config get needs one KEY", command: .config) }
            let setting = try settable(words[1])
            let key = setting.name
            let value = setting.get(try access.requireSettings())
            if context.globals.json {
                context.console.outLine(
                    JSONValue.object(
                        JSONObject([
                            ("key", .string(key)),
                            ("value", value.map(JSONValue.string) ?? .null)
                        ])
                    ).jsonText)
            } else if let value {
                context.console.out(TerminalText.singleLine(value) + "\n")
            }
            return 0
        case "set", "unset":
            let needed = action == "set" ? 3 : 2
            guard words.count == needed else {
                throw UsageError(action == "set" ? "config set needs KEY and VALUE" : "config unset needs one KEY", command: .config)
            }
            let setting = try settable(words[1])
            var settings = try access.requireSettings()
            setting.set(&settings, action == "set" ? try RememberedSettingWording.checked(setting, words[2], command: .config) : nil)
            // Under the profile's lock, as login writes it, so a login or refresh in another process
            // never meets a half-changed profile.
            let store = access.unlockedStore(settings)
            let changed = settings
            try await store.withLock { try access.profiles.save(changed, profile: access.profile) }
            return 0
        default:
            throw UsageError("unknown config action '\(action)'", command: .config, hint: "use get, set, unset or list")
        }
    }

    /// The setting named `key` when `config` may change it; exit 2 naming why otherwise.
    static func settable(_ key: String) throws(UsageError) -> RememberedSetting {
        if let setting = RememberedSetting.named(key) { return setting }
        if CommandCatalog.login.options.contains(where: { $0.key.longName == "--" + key }) {
            throw UsageError(
                "changing \(key) needs a new login", command: .config,
                hint: "run `latchkey login --\(key) VALUE`; config changes only " + keys.joined(separator: ", "))
        }
        throw UsageError("unknown setting '\(key)'", command: .config, hint: "the settings are: " + keys.joined(separator: ", "))
    }
}
