/// Writes a QR code as a PNG image (PNG 3rd edition / ISO 15948): 1-bit greyscale, one pixel
/// per bit, light = 1, with a light quiet zone. The image data is a zlib stream of stored
/// (uncompressed) deflate blocks: no compressor to get wrong, and a QR image is small anyway
/// (version 10 at 8 pixels per module is about 45 kB).
public enum PNGWriter {
    /// The PNG bytes: `scale` pixels per module (at least 1), `quietZone` light modules on each side.
    public static func png(_ code: QRCode, scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let raster = QRRaster(code, scale: scale, quietZone: quietZone)
        return image(side: raster.side, scanlines: scanlines(raster))
    }

    /// A square 1-bit greyscale PNG of `side` pixels from its filtered `scanlines`.
    static func image(side: Int, scanlines: [UInt8]) -> [UInt8] {
        var header: [UInt8] = []
        append32(UInt32(side), to: &header)  // width
        append32(UInt32(side), to: &header)  // height
        header += [1, 0, 0, 0, 0]  // bit depth 1, greyscale, deflate, adaptive filtering, no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlibStored(scanlines), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// Each row: filter type 0 (None), then the pixels packed most significant bit first; the
    /// unused low bits of a row's last byte are 1 (light).
    static func scanlines(_ raster: QRRaster) -> [UInt8] {
        let side = raster.side
        let rowBytes = (side + 7) / 8
        var data: [UInt8] = []
        data.reserveCapacity((rowBytes + 1) * side)
        for y in 0..<side {
            data.append(0)
            for byteIndex in 0..<rowBytes {
                var byte: UInt8 = 0
                for bit in 0..<8 {
                    let x = byteIndex * 8 + bit
                    if x >= side || !raster.isDark(x: x, y: y) { byte |= 0x80 >> UInt8(bit) }
                }
                data.append(byte)
            }
        }
        return data
    }

    /// A zlib stream (RFC 1950) holding `data` in stored deflate blocks (RFC 1951 §3.2.4) of at
    /// most 65 535 bytes, then the Adler-32 of `data`.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        // CMF 0x78: deflate, 32 KiB window; FLG 0x01: no dictionary, check bits make 0x7801 % 31 == 0.
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count + data.count / 65_535 * 5 + 16)
        var start = 0
        repeat {
            let end = min(start + 65_535, data.count)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)  // BFINAL, BTYPE 00 (stored)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        append32(Adler32.checksum(data), to: &out)
        return out
    }

    /// A chunk: length, type, data, and the CRC-32 of type and data (PNG §5.3).
    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        let typeAndData = Array(type.utf8) + data
        append32(UInt32(data.count), to: &png)
        png += typeAndData
        append32(CRC32.checksum(typeAndData), to: &png)
    }

    /// Big-endian, as PNG and zlib store integers.
    private static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
