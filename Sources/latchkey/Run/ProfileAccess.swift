import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// Everything a command needs to reach a profile: the state directory, the settings file, the
/// token store and — only when a command goes to the network — an HTTP client and a `Session`.
/// Each piece is made on demand so that `latchkey token` with a valid token builds no transport,
/// parses no CA bundle and seeds no random generator.
struct ProfileAccess: Sendable {
    /// The command's context.
    let context: CommandContext
    /// The resolved state directory.
    let stateDirectory: String

    /// Resolves the state directory: `--state-dir`, `LATCHKEY_STATE_DIR`, then the platform default.
    init(_ context: CommandContext) {
        self.context = context
        if let dir = context.globals.stateDirectoryOverride {
            stateDirectory = dir
        } else {
            stateDirectory = EncryptedFileTokenStore.defaultStateDirectory(lookup: context.environment.lookup)
        }
    }

    /// The profile name.
    var profile: String { context.globals.profile }

    /// The settings files.
    var profiles: ProfileStore { ProfileStore(stateDirectory: stateDirectory) }

    /// The profile's settings; `CommandFailure.notSignedIn` (exit 3) when there are none.
    func requireSettings() throws -> ProfileSettings {
        guard let settings = try profiles.load(profile) else { throw CommandFailure.notSignedIn(profile: profile) }
        return settings
    }

    /// The encrypted token store for the profile.
    /// `passphrase` replaces the usual sources (file, environment, prompt) when given.
    func tokenStore(_ settings: ProfileSettings, passphrase: PassphraseProvider? = nil) throws -> EncryptedFileTokenStore {
        EncryptedFileTokenStore(
            stateDirectory: stateDirectory, profile: profile, keySource: settings.keySource,
            environment: context.environment.subset(["CREDENTIALS_DIRECTORY"]),
            passphrase: try passphrase ?? SecretInput.passphrase(context, confirm: false))
    }

    /// The store for reaching the token file without opening it (existence, deletion): no secret is
    /// asked for.
    func unlockedStore(_ settings: ProfileSettings?) -> EncryptedFileTokenStore {
        EncryptedFileTokenStore(stateDirectory: stateDirectory, profile: profile, keySource: settings?.keySource ?? .machine)
    }

    /// The HTTP transport: CA bundle, proxy from the environment, and the `--verbose` log;
    /// `limits` bound the response (`fetch` accepts larger bodies than the provider's endpoints).
    /// `settings`: the profile's, whose remembered CA bundle is the default.
    func transport(limits: HTTPResponseParser.Limits = .init(), settings: ProfileSettings? = nil) -> HTTPClient {
        HTTPClient(configuration: configuration(limits: limits, settings: settings))
    }

    /// The configuration behind `transport`.
    func configuration(limits: HTTPResponseParser.Limits = .init(), settings: ProfileSettings? = nil) -> HTTPClient.Configuration {
        // Headers and bodies are the server's text: sanitised as every human line is, so an
        // `error_description` with ESC or C1 cannot retitle the terminal or redraw the screen.
        let logger: (@Sendable (String) -> Void)? =
            context.globals.verbose
            ? { @Sendable line in Console.write(2, TerminalText.sanitize(line) + "\n") } : nil
        // `--ca-file`, then LATCHKEY_CA_FILE; the library goes on to SSL_CERT_FILE, the profile's
        // bundle from `login --ca-file`, and the system bundle (cli.md, global options).
        let caFile = [context.globals.caFile, context.environment.lookup("LATCHKEY_CA_FILE")]
            .compactMap { $0 }.first { !$0.isEmpty }
        var configuration = HTTPClient.Configuration.fromEnvironment(
            context.environment.snapshot(), caFile: caFile,
            remembered: settings?.caFile, logger: logger)
        configuration.limits = limits
        return configuration
    }

    /// RFC 8705: the profile's client certificate, read from its files at each use and presented
    /// only on the provider connections where the client authenticates; nil when none is set.
    func mutualTLS(_ settings: ProfileSettings) -> MutualTLS? {
        guard let certificate = settings.clientCertificateFile, let key = settings.clientCertificateKeyFile else { return nil }
        let base = configuration(settings: settings)
        return MutualTLS(source: ClientCertificateFiles(certificatePath: certificate, keyPath: key)) { identity in
            var configuration = base
            configuration.clientIdentity = identity
            return HTTPClient(configuration: configuration)
        }
    }

    /// A session over `store` with the real transport, clock and random source.
    func session(_ settings: ProfileSettings, store: any TokenStore) throws -> Session {
        let random: SecureRandom
        do { random = try SecureRandom() } catch {
            throw CommandFailure(
                exitCode: 1, code: "internal_error", message: "the system random source failed: \(error)",
                hint: "check that getrandom(2) works in this environment")
        }
        let session = Session(
            configuration: settings.client, store: store, transports: EndpointTransports(transport(settings: settings)), random: random,
            clientSecret: try SecretInput.clientSecret(context),
            clientAuthentication: ClientAssertionOptions.assertionAuthentication(settings), mutualTLS: mutualTLS(settings),
            clientKey: ClientAssertionOptions.keySource(settings, store: store),
            defaultMargin: settings.minTTL.map { .profileDefault(Double($0)) } ?? .standard,
            assertion: settings.assertionFile.map { CredentialFile(path: $0) })
        if context.globals.verbose {
            session.notes.observe { note in Console.write(2, TerminalText.sanitize(SessionNoteWording.line(note)) + "\n") }
        }
        return session
    }
}
