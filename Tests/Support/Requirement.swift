import Testing

/// A test precondition (an environment variable, a file, a server) that was not met.
public struct RequirementMissing: Error, CustomStringConvertible, Sendable {
    /// What was missing and how to provide it.
    public let description: String
}

/// `requireOrSkip`: the one place that decides between failing and skipping.
///
/// Under CI (`CI=true`) a missing requirement fails the test, so a broken harness can never
/// turn into a green run that tested nothing. Locally it cancels the test with a visible reason.
public enum Requirement {
    /// Returns `value` when present; otherwise fails (CI) or skips (local) with `reason`.
    @discardableResult
    public static func requireOrSkip<T>(
        _ value: T?, _ reason: @autoclosure () -> String,
        environment: [String: String] = HostEnvironment.current,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> T {
        if let value { return value }
        throw try missing(reason(), environment: environment, sourceLocation: sourceLocation)
    }

    /// Fails (CI) or skips (local) unconditionally with `reason`: under CI it returns the error for
    /// the caller to throw (`throw try Requirement.missing(…)`); locally it cancels the test.
    ///
    /// Not `-> Never`: a never-returning call inside a throwing initialiser made the compiler warn
    /// "will never be executed" about the cleanup it places after it (107 warning lines).
    public static func missing(
        _ reason: String,
        environment: [String: String] = HostEnvironment.current,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RequirementMissing {
        if HostEnvironment.isCI(environment) {
            return RequirementMissing(description: "required under CI=true: \(reason)")
        }
        try Test.cancel("skipped (not CI): \(reason)", sourceLocation: sourceLocation)
    }

    /// The environment variable `name`, non-empty; otherwise fails (CI) or skips (local).
    public static func environmentValue(
        _ name: String,
        environment: [String: String] = HostEnvironment.current,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let value = environment[name].flatMap { $0.isEmpty ? nil : $0 }
        return try requireOrSkip(
            value, "\(name) is not set (start the harness with Tests/run-all.sh)",
            environment: environment, sourceLocation: sourceLocation)
    }
}
