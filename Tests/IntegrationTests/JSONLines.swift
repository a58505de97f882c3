import LatchkeyJOSE
import LatchkeyTestSupport

/// Parsing the JSON Lines that `latchkey --json` prints and the harness servers log.
enum JSONLines {
    /// Every line that parses as a JSON object; other lines are ignored (they are reported by callers).
    static func objects(_ lines: [String]) -> [JSONValue] {
        lines.compactMap { line in
            guard let value = try? JSONParser().parse(line), value.objectValue != nil else { return nil }
            return value
        }
    }

    /// The events of a `login --json` run, in order.
    static func events(_ result: ProcessResult) -> [JSONValue] { objects(result.stdoutLines) }

    /// The `event` names, for failure messages.
    static func names(_ events: [JSONValue]) -> [String] { events.compactMap { $0["event"]?.stringValue } }
}

extension JSONValue {
    /// A number member as Double (JSON numbers are kept as text by the parser).
    func number(_ key: String) -> Double? { self[key]?.doubleValue }
}
