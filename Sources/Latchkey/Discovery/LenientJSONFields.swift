import LatchkeyHTTP
import LatchkeyJOSE

/// Reading RFC fields leniently where providers disagree on JSON types.
extension JSONObject {
    /// A string member (nil when absent or not a string).
    func string(_ key: String) -> String? { self[key]?.stringValue }

    /// An integer member sent as a number or as a decimal string ("5"); nil otherwise.
    func lenientInt(_ key: String) -> Int64? {
        guard let v = self[key] else { return nil }
        if let i = v.int64Value { return i }
        if let s = v.stringValue {
            let t = s.filter { $0 != " " }
            if let i = Int64(t) { return i }
            // Int64(Double) traps outside ±2^63, so hostile "1e19" must be refused first (found by FuzzJSON).
            if let d = Double(t), d.isFinite, d.rounded() == d, abs(d) < 9.2e18 { return Int64(d) }
        }
        return nil
    }
}
