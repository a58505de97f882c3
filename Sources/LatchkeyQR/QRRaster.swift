/// A symbol as pixels: `scale` pixels per module and `quietZone` light modules on each side, the
/// one geometry that every bitmap writer (PGM, PNG) shares.
struct QRRaster: Sendable {
    let code: QRCode
    /// Pixels per module, at least 1.
    let scale: Int
    /// Light modules around the symbol, at least 0.
    let quietZone: Int

    init(_ code: QRCode, scale: Int, quietZone: Int) {
        self.code = code
        self.scale = max(scale, 1)
        self.quietZone = max(quietZone, 0)
    }

    /// Pixels per side: the symbol and both quiet zones, scaled.
    var side: Int { (code.size + 2 * quietZone) * scale }

    /// True when pixel (x, y), origin top left, lies on a dark module.
    func isDark(x: Int, y: Int) -> Bool {
        let mx = x / scale - quietZone, my = y / scale - quietZone
        return mx >= 0 && my >= 0 && mx < code.size && my < code.size && code[mx, my]
    }
}
