/// Writes a QR code as a binary PGM (`P5`) image, scaled up, with a light quiet zone: a format
/// every image tool reads, used by the tests to hand the symbol to an external decoder.
enum PortableAnymapWriter {
    /// The PGM bytes: `scale` pixels per module, `quietZone` light modules on each side.
    static func pgm(_ code: QRCode, scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let modules = code.size + 2 * quietZone
        let side = modules * scale
        var bytes = Array("P5\n\(side) \(side)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + side * side)
        for py in 0..<side {
            let my = py / scale - quietZone
            for px in 0..<side {
                let mx = px / scale - quietZone
                let isDark = mx >= 0 && my >= 0 && mx < code.size && my < code.size && code[mx, my]
                bytes.append(isDark ? 0 : 255)
            }
        }
        return bytes
    }
}
