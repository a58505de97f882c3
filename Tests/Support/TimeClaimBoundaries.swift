/// The boundaries of the time claims, as one table that every entry point judging them runs: the
/// library's `IDTokenVerifier` (for ID tokens and for generic JWTs) and `latchkey verify`. The rules
/// (RFC 7519 §4.1.4–4.1.6, one leeway L in seconds):
/// - accepted only while now < exp + L ("MUST NOT be accepted on or after" exp);
/// - accepted from nbf − L on ("MUST NOT be accepted before" nbf);
/// - iat ≤ now + L (OIDC Core §3.1.3.7 step 10; the jose acceptance corpus asks the same).
/// NumericDates keep their fraction (RFC 7519 §2), so half-second offsets are part of the table.
public enum TimeClaimBoundaries {
    /// One token and its expected verdict. Offsets are seconds from `now`.
    public struct Case: Sendable, CustomStringConvertible {
        /// What the case probes.
        public let name: String
        /// The leeway, whole seconds (the CLI's `--leeway`).
        public let leeway: Int64
        /// `exp` − now.
        public let exp: Double
        /// `nbf` − now, or nil for no `nbf`.
        public let nbf: Double?
        /// `iat` − now.
        public let iat: Double
        /// Whether the token must be accepted.
        public let valid: Bool

        public var description: String { name }

        /// The time claims at `now` (whole epoch seconds), each as JSON number text.
        public func claims(now: Int64) -> [(name: String, number: String)] {
            var list = [("exp", Self.numericDate(now, exp)), ("iat", Self.numericDate(now, iat))]
            if let nbf { list.append(("nbf", Self.numericDate(now, nbf))) }
            return list
        }

        /// `now + offset` as JSON number text, with a fraction only when the offset has one.
        static func numericDate(_ now: Int64, _ offset: Double) -> String {
            let whole = offset.rounded(.down)
            let seconds = now + Int64(whole)
            let fraction = offset - whole
            guard fraction != 0 else { return String(seconds) }
            // Fractions here are halves and quarters, exact in binary and in four decimals.
            var digits = String(Int64((fraction * 10_000).rounded()))
            while digits.count < 4 { digits = "0" + digits }
            while digits.hasSuffix("0") { digits.removeLast() }
            return String(seconds) + "." + digits
        }
    }

    /// The cases; `now` is whatever instant the entry point is asked to judge at.
    public static let cases: [Case] = [
        Case(name: "exp 1 s ahead, leeway 0", leeway: 0, exp: 1, nbf: nil, iat: -10, valid: true),
        Case(name: "exp == now, leeway 0 (on exp: refused)", leeway: 0, exp: 0, nbf: nil, iat: -10, valid: false),
        Case(name: "exp 1 s ago, leeway 0", leeway: 0, exp: -1, nbf: nil, iat: -10, valid: false),
        Case(name: "exp 59 s ago, leeway 60", leeway: 60, exp: -59, nbf: nil, iat: -100, valid: true),
        Case(name: "exp 60 s ago, leeway 60 (now == exp + leeway: refused)", leeway: 60, exp: -60, nbf: nil, iat: -100, valid: false),
        Case(name: "exp 61 s ago, leeway 60", leeway: 60, exp: -61, nbf: nil, iat: -100, valid: false),
        Case(name: "exp 59.5 s ago, leeway 60 (fraction keeps it alive)", leeway: 60, exp: -59.5, nbf: nil, iat: -100, valid: true),
        Case(name: "exp 60.5 s ago, leeway 60", leeway: 60, exp: -60.5, nbf: nil, iat: -100, valid: false),
        Case(name: "exp 0.25 s ahead, leeway 0", leeway: 0, exp: 0.25, nbf: nil, iat: -10, valid: true),
        Case(name: "exp 200 s ago, leeway 300", leeway: 300, exp: -200, nbf: nil, iat: -400, valid: true),
        Case(name: "nbf == now, leeway 0", leeway: 0, exp: 600, nbf: 0, iat: -10, valid: true),
        Case(name: "nbf 1 s ahead, leeway 0", leeway: 0, exp: 600, nbf: 1, iat: -10, valid: false),
        Case(name: "nbf 60 s ahead, leeway 60 (now == nbf - leeway: accepted)", leeway: 60, exp: 600, nbf: 60, iat: -10, valid: true),
        Case(name: "nbf 60.5 s ahead, leeway 60", leeway: 60, exp: 600, nbf: 60.5, iat: -10, valid: false),
        Case(name: "nbf 61 s ahead, leeway 60", leeway: 60, exp: 600, nbf: 61, iat: -10, valid: false),
        Case(name: "iat == now, leeway 0", leeway: 0, exp: 600, nbf: nil, iat: 0, valid: true),
        Case(name: "iat 1 s ahead, leeway 0", leeway: 0, exp: 600, nbf: nil, iat: 1, valid: false),
        Case(name: "iat 60 s ahead, leeway 60 (iat == now + leeway: accepted)", leeway: 60, exp: 600, nbf: nil, iat: 60, valid: true),
        Case(name: "iat 60.5 s ahead, leeway 60", leeway: 60, exp: 600, nbf: nil, iat: 60.5, valid: false),
        Case(name: "iat 61 s ahead, leeway 60", leeway: 60, exp: 600, nbf: nil, iat: 61, valid: false)
    ]
}
