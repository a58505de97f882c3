import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// Where secrets come from: files and environment variables, or a no-echo prompt on a terminal —
/// never the command line, where other users could read them in `ps`.
enum SecretInput {
    /// The client secret from `--client-secret-file`, else `LATCHKEY_CLIENT_SECRET`, else nil.
    static func clientSecret(_ context: CommandContext) throws(UsageError) -> String? {
        if let path = context.arguments.string(.clientSecretFile) {
            let secret = try readSecretFile(path, option: .clientSecretFile, command: context.arguments.command?.id)
            return String(decoding: secret, as: UTF8.self)
        }
        return context.environment["LATCHKEY_CLIENT_SECRET"]
    }

    /// A passphrase provider: `--passphrase-file`, else `LATCHKEY_PASSPHRASE`, else a prompt when
    /// stdin and stderr are terminals, else none (the store then reports that one is required).
    /// With `confirm` (a new token file) the prompt asks twice.
    static func passphrase(_ context: CommandContext, confirm: Bool) throws -> PassphraseProvider {
        if let path = context.arguments.string(.passphraseFile) {
            let bytes = try readOwnerOnlySecretFile(path, option: .passphraseFile, command: context.arguments.command?.id)
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

    /// `readSecretFile` with the key-file rules (cli.md): a file group or others can read, or that
    /// another user owns, is refused with exit 9, as a private key file is; one that cannot be
    /// read at all is a usage error.
    static func readOwnerOnlySecretFile(_ path: String, option: OptionKey, command: CommandName?) throws -> [UInt8] {
        var bytes: [UInt8]
        do { bytes = try OwnerOnlyFile.read(path, limit: 65_536) } catch {
            let reason: String
            switch error {
            case let .io(_, _, code):
                throw UsageError("cannot read \(option.longName) \(path): \(ErrnoText.describe(code))", command: command)
            case let .unsafePermissions(_, why): reason = why
            case let .wrongOwner(_, owner, expected): reason = "owned by uid \(owner), expected uid \(expected)"
            case let .tooLarge(_, size, limit): reason = "\(size) bytes, more than the \(limit)-byte limit"
            default: reason = error.description
            }
            throw CommandFailure(
                exitCode: 9, code: "storage_error", message: "refusing \(option.longName) \(path): \(reason)",
                hint: "it holds a secret: it must be yours and readable by you alone (chown it to you, chmod 600)")
        }
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw UsageError("\(option.longName) \(path) is empty", command: command) }
        return bytes
    }

    /// The file's bytes without one trailing newline (`\n` or `\r\n`); a usage error when unreadable.
    static func readSecretFile(_ path: String, option: OptionKey, command: CommandName?) throws(UsageError) -> [UInt8] {
        guard let bytes = SmallFile.read(path, limit: 65_536) else {
            throw UsageError("cannot read \(option.longName) \(path): \(ErrnoText.describe(errno))", command: command)
        }
        var result = bytes
        if result.last == 0x0A { result.removeLast() }
        if result.last == 0x0D { result.removeLast() }
        guard !result.isEmpty else { throw UsageError("\(option.longName) \(path) is empty", command: command) }
        return result
    }
}
