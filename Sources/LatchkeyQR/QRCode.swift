/// A QR code symbol encoding bytes in byte mode (ISO/IEC 18004): the smallest version that fits
/// at the chosen error-correction level, the mask with the lowest penalty, and the final
/// module grid. Draw it with `QRTerminalRenderer`, `SVGWriter`, `PNGWriter` or
/// `PortableAnymapWriter`, or read the modules with `self[x, y]` for `x, y` in `0..<size`.
public struct QRCode: Sendable {
    /// The version chosen.
    public let version: QRVersion
    /// The error-correction level used.
    public let level: QRErrorCorrectionLevel
    /// The mask chosen by penalty.
    public let mask: QRMask
    /// The finished symbol.
    let matrix: QRMatrix

    /// Modules per side, without the quiet zone (21 for version 1 … 177 for version 40).
    public var size: Int { matrix.size }

    /// True when the module at column `x`, row `y` (both in `0..<size`, origin top left) is dark.
    public subscript(x: Int, y: Int) -> Bool { matrix[x, y] }

    /// Why a payload could not be encoded.
    public enum EncodingError: Error, Sendable, Equatable {
        /// More bytes than the largest allowed version holds at the level.
        case tooLong(bytes: Int, capacity: Int)
    }

    /// Encodes `payload` in byte mode at `level`, using the smallest version up to `maxVersion`.
    /// `maxVersion` is clamped to 1…40. With `forcedMask` the penalty search is skipped (tests use
    /// it to check every mask).
    public init(
        bytes payload: [UInt8], level: QRErrorCorrectionLevel = .medium, maxVersion: Int = 40,
        forcedMask: QRMask? = nil
    ) throws(EncodingError) {
        let maxVersion = min(max(maxVersion, 1), 40)
        guard let version = (1...maxVersion).lazy.map(QRVersion.init).first(where: { $0.byteCapacity(level) >= payload.count })
        else {
            throw .tooLong(bytes: payload.count, capacity: QRVersion(maxVersion).byteCapacity(level))
        }
        self.version = version
        self.level = level
        let codewords = QRCode.finalCodewords(payload: payload, version: version, level: level)
        var base = QRMatrix(version: version)
        base.placeCodewords(codewords)
        var best: (mask: QRMask, matrix: QRMatrix, penalty: Int)?
        for mask in forcedMask.map({ [$0] }) ?? QRMask.allCases {
            var candidate = base
            candidate.apply(mask)
            candidate.drawFormatBits(QRFormatCode.formatBits(level: level, mask: mask))
            let penalty = forcedMask == nil ? QRPenalty.score(candidate) : 0
            if best == nil || penalty < best!.penalty { best = (mask, candidate, penalty) }
        }
        self.mask = best!.mask
        self.matrix = best!.matrix
    }

    /// Encodes the UTF-8 of `text` at `level`.
    public init(text: String, level: QRErrorCorrectionLevel) throws(EncodingError) {
        try self.init(bytes: Array(text.utf8), level: level)
    }

    /// Encodes the UTF-8 of `text`; picks level M, or L when M would need a larger symbol.
    public init(text: String) throws(EncodingError) {
        let bytes = Array(text.utf8)
        let medium = (1...40).first { QRVersion($0).byteCapacity(.medium) >= bytes.count }
        let low = (1...40).first { QRVersion($0).byteCapacity(.low) >= bytes.count }
        // M unless L gets the same payload into a smaller symbol (larger modules scan better).
        let level: QRErrorCorrectionLevel = (medium != nil && medium == low) ? .medium : .low
        try self.init(bytes: bytes, level: level)
    }

    /// The data stream (mode, count, bytes, terminator, padding) split into blocks, each with its
    /// Reed–Solomon codewords, interleaved as §7.6 prescribes.
    static func finalCodewords(payload: [UInt8], version: QRVersion, level: QRErrorCorrectionLevel) -> [UInt8] {
        let capacityBits = version.dataCodewords(level) * 8
        var buffer = QRBitBuffer()
        buffer.append(0b0100, length: 4)  // byte mode
        buffer.append(payload.count, length: version.byteCountBits)
        for byte in payload { buffer.append(Int(byte), length: 8) }
        buffer.append(0, length: min(4, capacityBits - buffer.count))  // terminator
        buffer.append(0, length: (8 - buffer.count % 8) % 8)
        var data = buffer.bytes
        var pad: UInt8 = 0xEC
        while data.count * 8 < capacityBits {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }

        let blockCount = level.blockCounts[version.number - 1]
        let ecLength = level.codewordsPerBlock[version.number - 1]
        let total = version.totalCodewords
        let shortBlocks = blockCount - total % blockCount
        let shortDataLength = total / blockCount - ecLength
        let encoder = ReedSolomonEncoder(degree: ecLength)
        var dataBlocks: [[UInt8]] = []
        var ecBlocks: [[UInt8]] = []
        var offset = 0
        for i in 0..<blockCount {
            let length = shortDataLength + (i < shortBlocks ? 0 : 1)
            let block = Array(data[offset..<(offset + length)])
            offset += length
            dataBlocks.append(block)
            ecBlocks.append(encoder.remainder(of: block))
        }
        var result: [UInt8] = []
        result.reserveCapacity(total)
        for i in 0...shortDataLength {
            for block in dataBlocks where i < block.count { result.append(block[i]) }
        }
        for i in 0..<ecLength {
            for block in ecBlocks { result.append(block[i]) }
        }
        return result
    }
}
