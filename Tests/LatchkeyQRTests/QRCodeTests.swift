import LatchkeyTestSupport
import Testing

@testable import LatchkeyQR

@Suite("QR building blocks")
struct QRBuildingBlockTests {
    @Test func reedSolomonGeneratorOfDegreeSeven() {
        // ISO/IEC 18004 Annex A: g(x) for 7 EC codewords has exponents 87, 229, 146, 149, 238, 102, 21.
        let field = GaloisField256.shared
        let expected = [87, 229, 146, 149, 238, 102, 21].map { field.power($0) }
        #expect(ReedSolomonEncoder(degree: 7).generator == expected)
    }

    @Test func reedSolomonRemainderOfTheStandardExample() {
        // ISO/IEC 18004 Annex I: "01234567" as 1-M gives these 16 data and 10 EC codewords.
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        let ec: [UInt8] = [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]
        #expect(ReedSolomonEncoder(degree: 10).remainder(of: data) == ec)
    }

    @Test func formatAndVersionWords() {
        // Annex C and D values.
        #expect(QRFormatCode.formatBits(level: .medium, mask: .pattern0) == 0b101010000010010)
        #expect(QRFormatCode.formatBits(level: .low, mask: .pattern0) == 0b111011111000100)
        #expect(QRFormatCode.formatBits(level: .medium, mask: .pattern5) == 0b100000011001110)
        #expect(QRFormatCode.formatBits(level: .quartile, mask: .pattern0) == 0b011010101011111)
        #expect(QRFormatCode.formatBits(level: .high, mask: .pattern0) == 0b001011010001001)
        #expect(QRFormatCode.versionBits(7) == 0x07C94)
        #expect(QRFormatCode.versionBits(40) == 0x28C69)
    }

    @Test func versionGeometry() {
        #expect(QRVersion(1).size == 21 && QRVersion(40).size == 177)
        #expect(QRVersion(1).alignmentCentres == [])
        #expect(QRVersion(2).alignmentCentres == [6, 18])
        #expect(QRVersion(7).alignmentCentres == [6, 22, 38])
        #expect(QRVersion(15).alignmentCentres == [6, 26, 48, 70])
        #expect(QRVersion(32).alignmentCentres == [6, 34, 60, 86, 112, 138])
        #expect(QRVersion(40).alignmentCentres == [6, 30, 58, 86, 114, 142, 170])
        #expect(QRVersion(1).totalCodewords == 26 && QRVersion(7).totalCodewords == 196)
        #expect(QRVersion(40).totalCodewords == 3706)
    }

    @Test func byteCapacitiesMatchTheStandardTable() {
        // ISO/IEC 18004 Table 7, byte mode.
        let medium = [1: 14, 2: 26, 5: 84, 7: 122, 9: 180, 10: 213, 13: 331, 15: 412, 20: 666, 40: 2331]
        for (v, capacity) in medium { #expect(QRVersion(v).byteCapacity(.medium) == capacity, "v\(v)-M") }
        let low = [1: 17, 6: 134, 7: 154, 10: 271, 11: 321, 40: 2953]
        for (v, capacity) in low { #expect(QRVersion(v).byteCapacity(.low) == capacity, "v\(v)-L") }
        let quartile = [1: 11, 2: 20, 5: 60, 7: 86, 10: 151, 40: 1663]
        for (v, capacity) in quartile { #expect(QRVersion(v).byteCapacity(.quartile) == capacity, "v\(v)-Q") }
        let high = [1: 7, 2: 14, 5: 44, 7: 64, 10: 119, 40: 1273]
        for (v, capacity) in high { #expect(QRVersion(v).byteCapacity(.high) == capacity, "v\(v)-H") }
    }

    @Test func smallestVersionIsChosen() throws {
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 14), level: .medium).version.number == 1)
        #expect(try QRCode(bytes: Array(repeating: 0x41, count: 15), level: .medium).version.number == 2)
        #expect(throws: QRCode.EncodingError.self) { try QRCode(bytes: Array(repeating: 0, count: 100), level: .medium, maxVersion: 3) }
    }

    @Test func penaltyRules() {
        #expect(QRPenalty.runPenalty([true, true, true, true, false]) == 0)
        #expect(QRPenalty.runPenalty([true, true, true, true, true]) == 3)
        #expect(QRPenalty.runPenalty([false, false, false, false, false, false, false, true]) == 5)
        let finder: [Bool] = [false, false, false, false, true, false, true, true, true, false, true]
        #expect(QRPenalty.finderLikePenalty(finder) == 80)  // light before, and the edge after counts as light
        let noFinder: [Bool] = [true, false, true, true, false, false, true, true, true, true, true]
        #expect(QRPenalty.finderLikePenalty(noFinder) == 0)
    }

    @Test func terminalRenderingUsesHalfBlocksAndQuietZone() throws {
        let code = try QRCode(text: "https://example.com/device")
        let text = QRTerminalRenderer(quietZone: 2).render(code)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == (code.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 4 })
        #expect(lines.first.map { $0.allSatisfy { $0 == "█" } } == true)  // quiet zone is light
        #expect(text.unicodeScalars.allSatisfy { "█▀▄ \n".unicodeScalars.contains($0) })
        // Text line 1 holds module rows 0 and 1 of the top-left finder: its dark top edge over
        // the dark sides and light inside of the next row.
        #expect(String(lines[1].dropFirst(2).prefix(7)) == " ▄▄▄▄▄ ")
    }
}

@Suite("QR round trip through zbarimg")
struct QRDecodeTests {
    /// Decodes `code` with zbarimg from a PGM file; returns the decoded text.
    static func decode(_ code: QRCode, in dir: TemporaryDirectory, name: String) throws -> String {
        let file = dir.path + "/" + name + ".pgm"
        #expect(QRImageDecoder.write(PortableAnymapWriter.pgm(code, scale: 4), to: file))
        let result = try QRImageDecoder.zbarimg(file: file)
        #expect(result.exitCode == 0, "zbarimg: \(result)")
        var text = result.stdoutText
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// A URL-like payload of exactly `length` bytes, varied so masks and versions differ.
    static func url(length: Int) -> String {
        var s = "https://idp.example.com/device?user_code="
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.~abcdefghijkmnopqrstuvwxyz")
        var i = length
        while s.utf8.count < length {
            s.append(alphabet[(i * 7 + s.utf8.count * 13) % alphabet.count])
            i += 1
        }
        return String(s.utf8.prefix(length).map { Character(UnicodeScalar($0)) })
    }

    @Test(arguments: [10, 14, 15, 26, 27, 40, 41, 62, 80, 100, 106, 122, 150, 180, 181, 213, 214, 251, 287, 300])
    func urlsRoundTrip(length: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text =
            length < 41
            ? String(Self.url(length: 60).utf8.prefix(length).map { Character(UnicodeScalar($0)) })
            : Self.url(length: length)
        #expect(text.utf8.count == length)
        let code = try QRCode(text: text)
        #expect(try Self.decode(code, in: dir, name: "len\(length)") == text, "version \(code.version.number)")
    }

    @Test(arguments: [20, 77, 160, 300])
    func terminalRenderingDecodes(length: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = Self.url(length: length)
        let rendered = QRTerminalRenderer(quietZone: 4).render(try QRCode(text: text))
        let file = dir.path + "/term.pgm"
        #expect(QRImageDecoder.write(QRImageDecoder.pgm(fromTerminalText: rendered), to: file))
        let result = try QRImageDecoder.zbarimg(file: file)
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stdoutText == text + "\n")
    }

    @Test func damagedSymbolDoesNotDecode() throws {
        // Control: the decoder must really read the symbol, so blanking the finders makes it fail.
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let code = try QRCode(text: Self.url(length: 80))
        var pgm = PortableAnymapWriter.pgm(code, scale: 4)
        let header = Array("P5\n".utf8).count + "\((code.size + 8) * 4) \((code.size + 8) * 4)\n255\n".utf8.count
        for i in header..<pgm.count { pgm[i] = 255 }
        let file = dir.path + "/blank.pgm"
        #expect(QRImageDecoder.write(pgm, to: file))
        let result = try QRImageDecoder.zbarimg(file: file)
        #expect(result.exitCode != 0)
        #expect(result.stdoutText.isEmpty)
    }

    @Test(arguments: QRMask.allCases)
    func everyMaskDecodes(mask: QRMask) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = Self.url(length: 120)  // version 7-M: also exercises the version blocks
        let code = try QRCode(bytes: Array(text.utf8), level: .medium, forcedMask: mask)
        #expect(code.version.number >= 7)
        #expect(try Self.decode(code, in: dir, name: "mask\(mask.rawValue)") == text)
    }

    @Test(arguments: QRErrorCorrectionLevel.allCases)
    func everyLevelDecodesAtLargeVersions(level: QRErrorCorrectionLevel) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = Self.url(length: 600)
        let code = try QRCode(bytes: Array(text.utf8), level: level)
        #expect(code.version.number >= 15)
        #expect(try Self.decode(code, in: dir, name: "large") == text)
    }
}
