/// Arithmetic in GF(2⁸) with the QR primitive polynomial x⁸+x⁴+x³+x²+1 (0x11D), as the
/// Reed–Solomon code of ISO/IEC 18004 §7.5.2 requires. Multiplication goes through log/antilog
/// tables built once.
struct GaloisField256: Sendable {
    /// αⁱ for i in 0..<255 (index 255 repeats 1 to spare a modulo).
    private let exp: [UInt8]
    /// log_α(x) for x in 1...255; index 0 unused.
    private let log: [UInt8]

    /// The field, with its tables.
    static let shared = GaloisField256()

    private init() {
        var exp = [UInt8](repeating: 0, count: 256)
        var log = [UInt8](repeating: 0, count: 256)
        var x = 1
        for i in 0..<255 {
            exp[i] = UInt8(x)
            log[x] = UInt8(i)
            x <<= 1
            if x & 0x100 != 0 { x ^= 0x11D }
        }
        exp[255] = exp[0]
        self.exp = exp
        self.log = log
    }

    /// a × b in the field.
    func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[(Int(log[Int(a)]) + Int(log[Int(b)])) % 255]
    }

    /// αⁿ.
    func power(_ n: Int) -> UInt8 { exp[n % 255] }
}
