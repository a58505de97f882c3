import LatchkeyHTTP
import Glibc
import Latchkey
import LatchkeyCrypto

/// Where secrets come from: files and environment variables, or a no-echo prompt on a terminal —
/// never the command line, where other users could read them in `ps`.
enum SecretInput {
    /// The client secret from `--client-secret-file`, else `LATCHKEY_CLIENT_SECRET`, else nil.
    static func clientSecret(_ context: CommandContext) throws(UsageError) -> String? {
        if let path = context.arguments.string("client-secret-file") {
            let secret = try readSecretFile(path, option: "client-secret-file", command: context.arguments.command?.name)
            return String(decoding: secret, as: UTF8.self)
        }
        return context.environment["LATCHKEY_CLIENT_SECRET"]
    }

    /// A passphrase provider: `--passphrase-file`, else `LATCHKEY_PASSPHRASE`, else a prompt when
    /// stdin and stderr are terminals, else none (the store then reports that one is required).
    /// With `confirm` (a new token file) the prompt asks twice.
    static func passphrase(_ context: CommandContext, confirm: Bool) throws(UsageError) -> PassphraseProvider {
        if let path = context.arguments.string("passphrase-file") {
            let bytes = try readSecretFile(path, option: "passphrase-file", command: context.arguments.command?.name)
            return { SecretBytes(bytes) }
        }
        if let value = context.environment["LATCHKEY_PASSPHRASE"] {
            let bytes = Array(value.utf8)
            return { SecretBytes(bytes) }
        }
        let interactive = context.console.stdinIsTTY && context.console.stderrIsTTY
        return {
            guard interactive else { return nil }
            guard let first = TerminalPrompt.readHidden(prompt: "Passphrase for the token file: ") else { return nil }
            if confirm {
                guard let second = TerminalPrompt.readHidden(prompt: "Repeat the passphrase: "), second == first else {
                    Console.write(2, "latchkey: the passphrases differ\n")
                    return nil
                }
            }
            return SecretBytes(first)
        }
    }

    /// The file's bytes without one trailing newline (`\n` or `\r\n`); a usage error when unreadable.
    static func readSecretFile(_ path: String, option: String, command: String?) throws(UsageError) -> [UInt8] {
        guard let bytes = SmallFile.read(path, limit: 65_536) else {
            throw UsageError("cannot read --\(option) \(path): \(ErrnoText.describe(errno))", command: command)
        }
        var result = bytes
        if result.last == 0x0A { result.removeLast() }
        if result.last == 0x0D { result.removeLast() }
        guard !result.isEmpty else { throw UsageError("--\(option) \(path) is empty", command: command) }
        return result
    }
}
