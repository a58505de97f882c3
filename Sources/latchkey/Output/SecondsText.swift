/// A number of seconds as text: integral values without a fraction (`60`, not `60.0`).
enum SecondsText {
    /// JSON number text for `seconds`.
    static func json(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }
}
