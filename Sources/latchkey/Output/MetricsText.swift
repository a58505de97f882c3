/// The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile collector
/// reads it: each family's `# HELP` and `# TYPE` lines, then its samples, all lines of a family
/// together. Label values are escaped as the format asks (backslash, double quote, newline), so
/// a profile name or any other text cannot end a label or start a new line of its own.
struct MetricsText {
    /// One sample: its labels, in order, and its value.
    struct Sample {
        var labels: [(name: String, value: String)]
        var value: Int64
    }

    private(set) var text = ""

    /// Appends the gauge family `name` with `help` and `samples`; nothing when there are none.
    mutating func gauge(_ name: String, help: String, _ samples: [Sample]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
        for sample in samples {
            text += name
            if !sample.labels.isEmpty {
                text +=
                    "{"
                    + sample.labels.map { $0.name + "=\"" + Self.escapeLabelValue($0.value) + "\"" }
                    .joined(separator: ",") + "}"
            }
            text += " \(sample.value)\n"
        }
    }

    /// `value` escaped for a label: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
    static func escapeLabelValue(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
