/// The global options after applying the environment and the defaults (docs/cli.md, "Global options").
/// The state directory and CA file stay unresolved when not given, so the hot path never computes
/// what it does not use.
struct GlobalOptions: Sendable {
    /// The profile name (validated).
    var profile: String
    /// `--state-dir` or `LATCHKEY_STATE_DIR`; nil means the platform default.
    var stateDirectoryOverride: String?
    /// The CA bundle named for this run: `--ca-file`, `LATCHKEY_CA_FILE`, then `SSL_CERT_FILE`;
    /// nil means the profile's bundle from `login --ca-file`, else the system bundle.
    var caFile: String?
    /// `--ca-file` as given on this command line: what `login` remembers.
    var caFileOption: String?
    /// `--json`.
    var json: Bool
    /// `-v/--verbose`.
    var verbose: Bool
    /// `-q/--quiet`.
    var quiet: Bool

    /// Resolves the globals from the parsed command line and the environment.
    init(_ parsed: ParsedArguments, environment: ProcessEnvironment) throws(UsageError) {
        profile = try ProfileName.validated(parsed.string(.profile) ?? environment["LATCHKEY_PROFILE"] ?? "default")
        stateDirectoryOverride = parsed.string(.stateDir) ?? environment["LATCHKEY_STATE_DIR"]
        if let dir = stateDirectoryOverride, dir.isEmpty {
            throw UsageError("--state-dir needs a directory")
        }
        caFileOption = parsed.string(.caFile)
        caFile = caFileOption ?? environment["LATCHKEY_CA_FILE"] ?? environment["SSL_CERT_FILE"]
        json = parsed.has(.json)
        verbose = parsed.has(.verbose)
        quiet = parsed.has(.quiet)
        if verbose && quiet {
            throw UsageError("--verbose and --quiet contradict each other")
        }
    }
}
