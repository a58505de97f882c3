/// Systematic Reed–Solomon encoder over GF(256) for QR codes: computes the error-correction
/// codewords of a block as the remainder of data(x)·xⁿ divided by the generator
/// g(x) = (x − α⁰)(x − α¹)…(x − αⁿ⁻¹).
struct ReedSolomonEncoder: Sendable {
    /// Coefficients of g(x) without the leading 1, highest degree first.
    let generator: [UInt8]

    /// An encoder producing `degree` error-correction codewords per block.
    init(degree: Int) {
        precondition(degree >= 1 && degree <= 255, "Reed–Solomon degree out of range")
        let field = GaloisField256.shared
        // Start from g(x) = 1 and multiply by (x − αⁱ) for each i; in GF(2⁸) minus is plus.
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = field.multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = field.multiply(root, 0x02)
        }
        generator = coefficients
    }

    /// The error-correction codewords for `data`.
    func remainder(of data: [UInt8]) -> [UInt8] {
        let field = GaloisField256.shared
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for i in 0..<result.count {
                result[i] ^= field.multiply(generator[i], factor)
            }
        }
        return result
    }
}
