import Testing

@testable import LatchkeyQR

/// The PNG and SVG writers checked structurally, without any outside tool: every chunk's CRC,
/// the zlib stream and its Adler-32, the dimensions, and every pixel against the symbol.
@Suite("QR image writers")
struct ImageWriterTests {
    @Test func checksumsOfKnownInputs() {
        // The CRC-32 check value of the catalogue ("123456789") and RFC 1950's Adler-32 example.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("IEND".utf8)) == 0xAE42_6082)  // every PNG ends with these bytes
        #expect(Adler32.checksum(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Adler32.checksum([]) == 1)
        // Long enough that the sums must be reduced on the way (5552-byte runs).
        let long = [UInt8](repeating: 0xFF, count: 100_000)
        var a: UInt64 = 1, b: UInt64 = 0
        for byte in long { a = (a + UInt64(byte)) % 65521; b = (b + a) % 65521 }
        #expect(Adler32.checksum(long) == UInt32(b << 16 | a))
    }

    /// A PNG taken apart: its chunks (CRCs checked), the image header, and the inflated scanlines.
    struct DecodedPNG {
        var chunkTypes: [String] = []
        var width = 0, height = 0
        var header: [UInt8] = []
        var scanlines: [UInt8] = []
        var storedBlocks = 0

        init(_ png: [UInt8]) throws {
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            func be32(_ i: Int) -> Int { png[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
            var offset = 8
            var idat: [UInt8] = []
            while offset < png.count {
                let length = be32(offset)
                let typeAndData = Array(png[(offset + 4)..<(offset + 8 + length)])
                let type = String(decoding: typeAndData.prefix(4), as: UTF8.self)
                #expect(UInt32(be32(offset + 8 + length)) == CRC32.checksum(typeAndData), "CRC of \(type)")
                chunkTypes.append(type)
                let data = Array(typeAndData.dropFirst(4))
                if type == "IHDR" { header = data; width = be32(offset + 8); height = be32(offset + 12) }
                if type == "IDAT" { idat += data }
                offset += 12 + length
            }
            #expect(offset == png.count)
            // zlib: CMF/FLG, stored deflate blocks, Adler-32 of the inflated bytes.
            #expect(idat.count >= 6)
            #expect(idat[0] == 0x78 && (Int(idat[0]) << 8 | Int(idat[1])) % 31 == 0 && idat[1] & 0x20 == 0)
            var i = 2
            var final = false
            while !final {
                final = idat[i] & 1 == 1
                #expect(idat[i] >> 1 & 3 == 0, "stored block")
                let length = Int(idat[i + 1]) | Int(idat[i + 2]) << 8
                let complement = Int(idat[i + 3]) | Int(idat[i + 4]) << 8
                #expect(length ^ 0xFFFF == complement)
                scanlines += idat[(i + 5)..<(i + 5 + length)]
                i += 5 + length
                storedBlocks += 1
            }
            let adler = idat[i..<(i + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(adler == Adler32.checksum(scanlines))
            #expect(i + 4 == idat.count)
        }

        /// True when pixel (x, y) is black (bit 0 in 1-bit greyscale).
        func isDark(x: Int, y: Int) -> Bool {
            let rowBytes = (width + 7) / 8
            return scanlines[y * (rowBytes + 1) + 1 + x / 8] & (0x80 >> UInt8(x % 8)) == 0
        }
    }

    /// True when pixel (x, y) of a `scale`d image with a 4-module quiet zone should be dark.
    static func expectedDark(_ code: QRCode, x: Int, y: Int, scale: Int, quietZone: Int = 4) -> Bool {
        let mx = x / scale - quietZone, my = y / scale - quietZone
        return (0..<code.size).contains(mx) && (0..<code.size).contains(my) && code[mx, my]
    }

    @Test(arguments: [
        (text: "https://idp.example/device", scale: 1), (text: "hello", scale: 3),
        (text: String(repeating: "x", count: 300), scale: 20)
    ])
    func pngIsWellFormedAndMatchesTheSymbol(text: String, scale: Int) throws {
        let code = try QRCode(text: text)
        let png = try DecodedPNG(PNGWriter.png(code, scale: scale))
        #expect(png.chunkTypes == ["IHDR", "IDAT", "IEND"])
        let side = (code.size + 8) * scale
        #expect(png.width == side && png.height == side)
        #expect(Array(png.header.suffix(5)) == [1, 0, 0, 0, 0])  // 1-bit greyscale, no interlace
        let rowBytes = (side + 7) / 8
        #expect(png.scanlines.count == side * (rowBytes + 1))
        #expect(png.storedBlocks == (png.scanlines.count + 65_534) / 65_535)
        var mismatches = 0
        for y in 0..<side {
            #expect(png.scanlines[y * (rowBytes + 1)] == 0, "filter type None")
            for x in 0..<side where png.isDark(x: x, y: y) != Self.expectedDark(code, x: x, y: y, scale: scale) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test func writersClampNonsenseGeometry() throws {
        let code = try QRCode(text: "a")
        let png = try DecodedPNG(PNGWriter.png(code, scale: 0, quietZone: -3))
        #expect(png.width == code.size)
        #expect(PortableAnymapWriter.pgm(code, scale: -1, quietZone: 0).count == Array("P5\n21 21\n255\n".utf8).count + 21 * 21)
    }

    /// The dark modules an SVG's path covers, rebuilt from its `M x y h n v1 h-n z` rectangles.
    static func darkModules(inSVG svg: String, modules: Int) -> [[Bool]]? {
        guard let start = svg.firstRange(of: " d=\"")?.upperBound,
            let end = svg[start...].firstIndex(of: "\"")
        else { return nil }
        var grid = [[Bool]](repeating: [Bool](repeating: false, count: modules), count: modules)
        for rectangle in svg[start..<end].split(separator: "z") {
            // "M4 5h3v1h-3"
            let numbers = rectangle.split(whereSeparator: { "Mhv ".contains($0) }).compactMap { Int($0) }
            guard numbers.count == 5, numbers[3] == 1, numbers[4] == -numbers[2], numbers[2] > 0 else { return nil }
            for x in numbers[0]..<(numbers[0] + numbers[2]) {
                guard !grid[numbers[1]][x] else { return nil }  // rectangles never overlap
                grid[numbers[1]][x] = true
            }
        }
        return grid
    }

    @Test(arguments: [
        (text: "https://idp.example/device?user_code=WDJB-MJHT", level: QRErrorCorrectionLevel.medium, scale: 8),
        (text: "x", level: .high, scale: 1)
    ])
    func svgPathCoversExactlyTheDarkModules(text: String, level: QRErrorCorrectionLevel, scale: Int) throws {
        let code = try QRCode(text: text, level: level)
        let svg = String(decoding: SVGWriter.svg(code, scale: scale), as: UTF8.self)
        let modules = code.size + 8
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("width=\"\(modules * scale)\" height=\"\(modules * scale)\" viewBox=\"0 0 \(modules) \(modules)\""))
        #expect(svg.contains("<rect width=\"\(modules)\" height=\"\(modules)\" fill=\"#ffffff\"/>"))
        let grid = try #require(Self.darkModules(inSVG: svg, modules: modules))
        for y in 0..<modules {
            for x in 0..<modules {
                let expected = Self.expectedDark(code, x: x, y: y, scale: 1)
                #expect(grid[y][x] == expected, "module (\(x), \(y))")
            }
        }
        // One rectangle per horizontal run of dark modules, not one per module.
        let rectangles = svg.split(separator: "z").count - 1
        let runs = (0..<code.size).map { y in (0..<code.size).filter { x in code[x, y] && (x == 0 || !code[x - 1, y]) }.count }
        #expect(rectangles == runs.reduce(0, +))
    }
}
