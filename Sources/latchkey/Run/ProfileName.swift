import Latchkey

/// Checks a profile name: it becomes part of file names (`profiles/NAME.json`, `NAME.tokens`), so
/// only the store's safe alphabet is accepted and nothing that could climb out of the state
/// directory.
enum ProfileName {
    /// Returns `name` when it is acceptable, else throws a usage error.
    static func validated(_ name: String) throws(UsageError) -> String {
        guard EncryptedFileTokenStore.isValidProfileName(name) else {
            throw UsageError(
                "invalid profile name '\(name)'",
                hint: "use 1-64 letters, digits, '.', '-' or '_', not starting with '.'")
        }
        return name
    }
}
