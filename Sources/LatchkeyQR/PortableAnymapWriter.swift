/// Writes a QR code as a binary PGM (`P5`) image, scaled up, with a light quiet zone: a format
/// every image tool reads, used by the tests to hand the symbol to an external decoder.
public enum PortableAnymapWriter {
    /// The PGM bytes: `scale` pixels per module (at least 1), `quietZone` light modules on each side.
    public static func pgm(_ code: QRCode, scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let raster = QRRaster(code, scale: scale, quietZone: quietZone)
        let side = raster.side
        var bytes = Array("P5\n\(side) \(side)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + side * side)
        for y in 0..<side {
            for x in 0..<side { bytes.append(raster.isDark(x: x, y: y) ? 0 : 255) }
        }
        return bytes
    }
}
