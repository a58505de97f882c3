import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey config get|set|unset KEY [VALUE]` and `config list`: changes what a profile remembers
/// without a new sign-in, for the settings that do not change the sign-in (cli.md). Values are
/// checked as `login` checks them; any other login option needs a new login, since the tokens
/// were issued for it.
enum ConfigCommand {
    /// The settings `config` may change, as `login` names their options.
    static let keys = ["ca-file", "credential-host", "credential-username", "post-logout-redirect-uri", "min-ttl"]

    static func run(_ context: CommandContext) async throws -> Int32 {
        let words = context.arguments.positionals
        guard let action = words.first else {
            throw UsageError("config needs get, set, unset or list", command: "config")
        }
        let access = ProfileAccess(context)
        switch action {
        case "list":
            guard words.count == 1 else { throw UsageError("config list takes no KEY", command: "config") }
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
            guard words.count == 2 else { throw UsageError("config get needs one KEY", command: "config") }
            let key = try settable(words[1])
            let value = current(key, in: try access.requireSettings())
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
                throw UsageError(action == "set" ? "config set needs KEY and VALUE" : "config unset needs one KEY", command: "config")
            }
            let key = try settable(words[1])
            var settings = try access.requireSettings()
            try assign(key, action == "set" ? try checked(key, words[2]) : nil, to: &settings)
            // Under the profile's lock, as login writes it, so a login or refresh in another process
            // never meets a half-changed profile.
            let store = access.unlockedStore(settings)
            let changed = settings
            try await store.withLock { try access.profiles.save(changed, profile: access.profile) }
            return 0
        default:
            throw UsageError("unknown config action '\(action)'", command: "config", hint: "use get, set, unset or list")
        }
    }

    /// `key` when `config` may change it; exit 2 naming why otherwise.
    static func settable(_ key: String) throws(UsageError) -> String {
        if keys.contains(key) { return key }
        if CommandCatalog.login.options.contains(where: { $0.key == key }) {
            throw UsageError(
                "changing \(key) needs a new login", command: "config",
                hint: "run `latchkey login --\(key) VALUE`; config changes only " + keys.joined(separator: ", "))
        }
        throw UsageError("unknown setting '\(key)'", command: "config", hint: "the settings are: " + keys.joined(separator: ", "))
    }

    /// `value` checked as `login` checks the option (a CA bundle must be a readable PEM file).
    static func checked(_ key: String, _ value: String) throws -> String {
        switch key {
        case "min-ttl":
            guard let n = Int64(value), n >= 0 else {
                throw UsageError("min-ttl needs a whole number of seconds ≥ 0, got '\(value)'", command: "config")
            }
            // Remembered by every later call (and copied across a fleet): a margin past a day
            // would make every token due, so every call a refresh.
            guard Double(n) <= RefreshMargin.profileCeiling else {
                throw UsageError(
                    "min-ttl is at most \(Int(RefreshMargin.profileCeiling)) seconds (a day), got \(n)", command: "config",
                    hint: "a margin at least as long as the token's lifetime would refresh on every call")
            }
            return String(n)
        case "ca-file":
            let path = ClientCertificateFiles.absolute(value)
            let bytes: [UInt8]
            do { bytes = try PublicFile.read(path, limit: 8 << 20) } catch {
                throw UsageError("cannot read the CA bundle \(path): \(error.description)", command: "config")
            }
            // The rule every use applies (a bundle others can write is refused, exit 9), before it
            // is remembered.
            try HTTPClient.checkCABundle(path)
            guard holdsCertificate(bytes) else {
                throw UsageError("\(path) holds no PEM certificate", command: "config", hint: "give a PEM bundle of CA certificates")
            }
            return path
        default:
            return try LoginCommand.checkedRememberedValue(key, value, command: "config")
        }
    }

    /// True when `bytes` contain a PEM certificate's first line (a bundle may begin with comments).
    static func holdsCertificate(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    /// The remembered value of `key`, nil when unset.
    static func current(_ key: String, in settings: ProfileSettings) -> String? {
        switch key {
        case "ca-file": return settings.caFile
        case "credential-host": return settings.credentialHost
        case "credential-username": return settings.credentialUsername
        case "post-logout-redirect-uri": return settings.postLogoutRedirectURI
        case "min-ttl": return settings.minTTL.map(String.init)
        default: return nil
        }
    }

    /// Sets (or, with nil, forgets) `key`.
    static func assign(_ key: String, _ value: String?, to settings: inout ProfileSettings) throws {
        switch key {
        case "ca-file": settings.caFile = value
        case "credential-host": settings.credentialHost = value
        case "credential-username": settings.credentialUsername = value
        case "post-logout-redirect-uri": settings.postLogoutRedirectURI = value
        case "min-ttl": settings.minTTL = value.flatMap { Int64($0) }
        default: throw UsageError("unknown setting '\(key)'", command: "config")
        }
    }
}
