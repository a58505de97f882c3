import LatchkeyTestSupport
import Testing

@testable import LatchkeyQR

/// PNG and SVG output read back by an outside decoder (zbarimg; SVG both directly and after
/// rsvg-convert rasterised it), which must give back exactly the text that was encoded.
@Suite("QR PNG and SVG read back by zbarimg")
struct ImageDecodeTests {
    static let payloads: [(text: String, level: QRErrorCorrectionLevel)] = [
        ("A", .high),
        ("https://idp.example.com/device?user_code=WDJB-MJHT&client_id=kiosk%2D7", .medium),
        ("https://login.example.org/activate?code=QX4T-9PLM", .quartile),
        (String(repeating: "0123456789abcdef", count: 20), .low),  // 320 bytes, version 11-L
        (String(repeating: "k", count: 900), .high)  // version 31-H: version blocks, many EC blocks
    ]

    /// Strips the one newline zbarimg --raw ends its output with.
    static func decoded(_ result: ProcessResult) -> String {
        var text = result.stdoutText
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Checks that zbarimg reads exactly `text` from `file`, the image of `code`.
    static func expectDecodes(
        _ file: String, as text: String, _ code: QRCode, _ how: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try QRImageDecoder.zbarimg(file: file)
        #expect(result.exitCode == 0, "\(result)", sourceLocation: sourceLocation)
        #expect(decoded(result) == text, "\(how), version \(code.version.number)-\(code.level)", sourceLocation: sourceLocation)
    }

    @Test(arguments: payloads.indices)
    func pngDecodes(index: Int) throws {
        let (text, level) = Self.payloads[index]
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let code = try QRCode(text: text, level: level)
        let file = dir.path + "/code.png"
        #expect(QRImageDecoder.write(PNGWriter.png(code, scale: 3), to: file))
        try Self.expectDecodes(file, as: text, code, "PNG")
    }

    @Test(arguments: payloads.indices)
    func svgDecodesDirectlyAndAfterRasterising(index: Int) throws {
        let (text, level) = Self.payloads[index]
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let code = try QRCode(text: text, level: level)
        let svg = dir.path + "/code.svg", png = dir.path + "/code-from-svg.png"
        #expect(QRImageDecoder.write(SVGWriter.svg(code, scale: 3), to: svg))
        let converted = try ProcessRunner.run(try QRImageDecoder.rsvgConvert(), ["-o", png, svg], timeout: .seconds(30))
        #expect(converted.exitCode == 0, "\(converted)")
        try Self.expectDecodes(png, as: text, code, "SVG through rsvg-convert")
        // zbarimg also reads SVG itself (ImageMagick's own renderer): a second, independent reader.
        try Self.expectDecodes(svg, as: text, code, "SVG read directly")
    }

    /// Every version at every level, at full capacity: each entry of the block tables is used once.
    @Test(arguments: QRErrorCorrectionLevel.allCases)
    func everyVersionDecodesAsPNG(level: QRErrorCorrectionLevel) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        for number in 1...40 {
            let capacity = QRVersion(number).byteCapacity(level)
            let text = String((0..<capacity).map { Character(UnicodeScalar(UInt8(0x41 + ($0 * 7 + number) % 26))) })
            // A forced mask: the penalty search is tested elsewhere and is slow in debug builds.
            let code = try QRCode(bytes: Array(text.utf8), level: level, forcedMask: QRMask(rawValue: number % 8)!)
            #expect(code.version.number == number)
            let file = dir.path + "/v\(number).png"
            #expect(QRImageDecoder.write(PNGWriter.png(code, scale: 2), to: file))
            let result = try QRImageDecoder.zbarimg(file: file)
            #expect(
                result.exitCode == 0 && Self.decoded(result) == text,
                "version \(number)-\(level): \(result.exitCode.map(String.init) ?? "?")")
        }
    }

    @Test func damagedPNGDoesNotDecode() throws {
        // Control: a PNG whose image is all light must not decode, so the tests above read real symbols.
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let code = try QRCode(text: "https://idp.example.com/device")
        let raster = QRRaster(code, scale: 3, quietZone: 4)
        var scanlines = PNGWriter.scanlines(raster)
        let rowBytes = (raster.side + 7) / 8
        for i in scanlines.indices where i % (rowBytes + 1) != 0 { scanlines[i] = 0xFF }
        let png = PNGWriter.image(side: raster.side, scanlines: scanlines)
        #expect(try ImageWriterTests.DecodedPNG(png).chunkTypes == ["IHDR", "IDAT", "IEND"])
        let file = dir.path + "/blank.png"
        #expect(QRImageDecoder.write(png, to: file))
        let result = try QRImageDecoder.zbarimg(file: file)
        #expect(result.exitCode != 0)
        #expect(result.stdoutText.isEmpty)
    }
}
