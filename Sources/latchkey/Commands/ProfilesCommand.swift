import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey profiles`: every profile with its issuer, subject and expiry. Never prompts: a
/// passphrase profile shows as locked unless the passphrase comes from a file or the environment.
enum ProfilesCommand {
    struct Row {
        var name: String
        var issuer: String?
        var clientID: String?
        var subject: String?
        var expiresAt: Timestamp?
        var signedIn = false
        var error: String?
    }

    static func run(_ context: CommandContext) throws -> Int32 {
        let access = ProfileAccess(context)
        let profiles = access.profiles
        var rows: [Row] = []
        for name in profiles.list() {
            var row = Row(name: name)
            do {
                guard let settings = try profiles.load(name) else { continue }
                row.issuer = settings.client.issuer
                row.clientID = settings.client.clientID
                let store = EncryptedFileTokenStore(
                    stateDirectory: access.stateDirectory, profile: name, keySource: settings.keySource,
                    environment: context.environment.subset(["CREDENTIALS_DIRECTORY"]),
                    passphrase: try nonInteractivePassphrase(context))
                // The same model as `status`: signed in, subject and expiry decided once.
                let status = SessionStatus(session: try store.load(), lastRefresh: nil, at: Timestamp.now())
                row.signedIn = status.signedIn
                row.subject = status.subject
                row.expiresAt = status.accessTokenExpiresAt
            } catch let error as TokenStoreError where error == .passphraseRequired {
                row.error = "locked (passphrase needed)"
            } catch {
                row.error = FailureReport(error).message
            }
            rows.append(row)
        }
        if context.globals.json {
            let array = rows.map { row -> JSONValue in
                var o = JSONObject()
                o["profile"] = .string(row.name)
                o["issuer"] = row.issuer.map(JSONValue.string) ?? .null
                o["client_id"] = row.clientID.map(JSONValue.string) ?? .null
                o["subject"] = row.subject.map(JSONValue.string) ?? .null
                o["expires_at"] = row.expiresAt.map { .string(RFC3339.format($0)) } ?? .null
                o["signed_in"] = .bool(row.signedIn)
                if let error = row.error { o["error"] = .string(error) }
                return .object(o)
            }
            context.console.outLine(JSONValue.array(array).jsonText)
            return 0
        }
        if rows.isEmpty {
            context.console.info("No profiles in \(access.stateDirectory); run `latchkey login --issuer URL --client-id ID`.\n")
            return 0
        }
        // Issuer and subject come from servers (and errors quote them): sanitised before display.
        let table =
            [["PROFILE", "ISSUER", "SUBJECT", "EXPIRES"]]
            + rows.map { row in
                [
                    row.name, row.issuer ?? "-", row.error ?? (row.signedIn ? (row.subject ?? "-") : "(signed out)"),
                    row.expiresAt.map { RFC3339.format($0) } ?? "-"
                ].map(TerminalText.singleLine)
            }
        let widths = (0..<4).map { c in table.map { $0[c].count }.max() ?? 0 }
        var out = ""
        for line in table {
            var text = ""
            for c in 0..<4 {
                text += line[c]
                if c < 3 { text += String(repeating: " ", count: widths[c] - line[c].count + 2) }
            }
            out += text + "\n"
        }
        context.console.out(out)
        return 0
    }

    /// The passphrase from a file or the environment, never a prompt.
    static func nonInteractivePassphrase(_ context: CommandContext) throws -> PassphraseProvider {
        if let path = context.arguments.string(.passphraseFile) {
            let bytes = try SecretInput.readSecretFile(path, option: .passphraseFile, command: .profiles)
            return { SecretBytes(bytes) }
        }
        if let value = context.environment["LATCHKEY_PASSPHRASE"] {
            let bytes = Array(value.utf8)
            return { SecretBytes(bytes) }
        }
        return { nil }
    }
}
