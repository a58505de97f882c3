/// Checks a profile name: it becomes part of file names (`profiles/NAME.json`, `NAME.tokens`), so
/// only a safe alphabet is accepted and nothing that could climb out of the state directory.
enum ProfileName {
    /// Returns `name` when it is acceptable, else throws a usage error.
    static func validated(_ name: String) throws(UsageError) -> String {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == 0x2D || c == 0x5F || c == 0x2E || c == 0x40
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed, !name.hasPrefix(".") else {
            throw UsageError("invalid profile name '\(name)'",
                             hint: "use up to 64 letters, digits, '.', '-', '_' or '@', not starting with '.'")
        }
        return name
    }
}
