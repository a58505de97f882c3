import Glibc
import LatchkeyJOSE

/// JSON for stdout: one line when a program reads it, indented when a person does (stdout is a
/// terminal).
enum JSONOutput {
    /// `value` as text, without a trailing newline.
    static func text(_ value: JSONValue, console: Console) -> String {
        isatty(1) == 1 ? value.prettyJSONText : value.jsonText
    }
}
