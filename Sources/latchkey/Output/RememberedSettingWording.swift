import Latchkey

/// A remembered setting's refusal in the CLI's words, the same for `login --KEY` and `config set
/// KEY` (exit 2; a CA bundle others can write keeps the exit 9 of every use of it).
enum RememberedSettingWording {
    /// The error to throw for `refusal` of `setting`'s value, from `command`.
    static func error(_ refusal: RememberedSetting.Refusal, setting: RememberedSetting, command: CommandName) -> any Error {
        switch refusal {
        case .unusableText:
            return UsageError("--\(setting.name) must be non-empty, without spaces or control characters", command: command)
        case .notAbsoluteURI(let value):
            return UsageError("--\(setting.name) must be an absolute URI, got '\(TerminalText.singleLine(value))'", command: command)
        case .notWholeSeconds(let value):
            return UsageError(
                "\(setting.name) needs a whole number of seconds ≥ 0, got '\(TerminalText.singleLine(value))'", command: command)
        case .tooManySeconds(let seconds, let ceiling):
            return UsageError(
                "\(setting.name) is at most \(ceiling) seconds (a day), got \(seconds)", command: command,
                hint: "a margin at least as long as the token's lifetime would refresh on every call")
        case .unusableBundle(_, let error):
            // As at every use: unreadable is exit 2, writable by others exit 9 (FailureReport).
            return LatchkeyError.network(error)
        case .noCertificate(let path):
            return UsageError("\(path) holds no PEM certificate", command: command, hint: "give a PEM bundle of CA certificates")
        }
    }

    /// `value` checked by `setting`'s rule, worded for `command` when refused.
    static func checked(_ setting: RememberedSetting, _ value: String, command: CommandName) throws -> String {
        do { return try setting.check(value) } catch { throw self.error(error, setting: setting, command: command) }
    }
}
