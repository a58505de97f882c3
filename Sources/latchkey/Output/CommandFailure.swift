/// A failure the CLI itself detects (not the library): carries its exit code and wording.
struct CommandFailure: Error, Sendable {
    /// The contract's exit code.
    let exitCode: Int32
    /// Stable short name for JSON error events.
    let code: String
    /// One line saying what failed.
    let message: String
    /// What to do next.
    let hint: String?

    /// The profile has no settings or no tokens: exit 3.
    static func notSignedIn(profile: String) -> CommandFailure {
        CommandFailure(
            exitCode: 3, code: "not_signed_in", message: "profile '\(profile)' is not signed in",
            hint: profile == "default"
                ? "run `latchkey login --issuer URL --client-id ID`"
                : "run `latchkey --profile \(profile) login --issuer URL --client-id ID`")
    }

    /// Token verification failed (`verify`): exit 8.
    static func verification(_ reason: String) -> CommandFailure {
        CommandFailure(
            exitCode: 8, code: "verification_failed", message: "token verification failed: \(reason)",
            hint: "check the key set, --issuer, --audience, --alg and the clock (--at, --leeway)")
    }
}
