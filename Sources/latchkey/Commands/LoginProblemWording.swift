import Latchkey

/// The library's sign-in rules (`ClientConfiguration.problems(for:given:)`) checked before a
/// login sends anything; the words are `ConfigurationProblemWording`'s, the one table of them.
enum LoginProblemWording {
    /// Throws the first problem of a login with `settings`, worded with the options.
    static func check(
        _ settings: ProfileSettings, flow: LoginFlow, clientSecret: Bool, loginHint: Bool,
        offlineAccess: OfflineAccessPolicy
    ) throws {
        let materials = SignInMaterials(
            clientSecret: clientSecret, clientKey: settings.clientKeyFile != nil || settings.clientAssertionFile != nil,
            clientCertificate: settings.clientCertificateFile != nil && settings.clientCertificateKeyFile != nil,
            loginHint: loginHint, pasteReader: flow == .paste, offlineAccess: offlineAccess,
            assertion: settings.assertionFile != nil)
        if let problem = settings.client.problems(for: flow, given: materials).first { throw error(problem) }
    }

    /// The error `login` reports for `problem`: a usage error in the words of
    /// `ConfigurationProblemWording` when its own options caused it, else the library's error.
    static func error(_ problem: ConfigurationProblem) -> any Error {
        guard ConfigurationProblemWording.isUsage(problem) else { return LatchkeyError.configuration(problem) }
        let words = ConfigurationProblemWording.words(problem)
        return UsageError(words.message, command: .login, hint: words.hint)
    }
}
