/// The module grid of one QR symbol while it is being built: which modules are dark, and which
/// belong to function patterns (finders, separators, timing, alignment, format and version
/// areas) and so must neither receive data nor be masked (ISO/IEC 18004 §6.3).
struct QRMatrix: Sendable {
    /// Modules per side.
    let size: Int
    /// Dark modules, row-major.
    private(set) var dark: [Bool]
    /// Function-pattern modules, row-major.
    private(set) var isFunction: [Bool]

    /// An all-light grid with the function patterns of `version` drawn and the format and
    /// version areas reserved.
    init(version: QRVersion) {
        size = version.size
        dark = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawTimingPatterns()
        drawFinder(centreX: 3, centreY: 3)
        drawFinder(centreX: size - 4, centreY: 3)
        drawFinder(centreX: 3, centreY: size - 4)
        let centres = version.alignmentCentres
        for (i, y) in centres.enumerated() {
            for (j, x) in centres.enumerated() {
                // Skip the three corners that the finder patterns occupy.
                let last = centres.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centreX: x, centreY: y)
            }
        }
        // Reserve the format areas now (any content); the real bits come with the mask.
        drawFormatBits(0)
        drawVersion(version)
    }

    /// True when the module at column `x`, row `y` is dark.
    subscript(x: Int, y: Int) -> Bool { dark[y * size + x] }

    /// True when (x, y) is part of a function pattern.
    func isFunctionModule(x: Int, y: Int) -> Bool { isFunction[y * size + x] }

    private mutating func setFunction(_ x: Int, _ y: Int, _ isDark: Bool) {
        dark[y * size + x] = isDark
        isFunction[y * size + x] = true
    }

    private mutating func drawTimingPatterns() {
        for i in 0..<size {
            setFunction(6, i, i % 2 == 0)
            setFunction(i, 6, i % 2 == 0)
        }
    }

    /// A 7×7 finder with its one-module light separator (clipped at the symbol's edge).
    private mutating func drawFinder(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx, y = centreY + dy
                guard x >= 0, x < size, y >= 0, y < size else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(x, y, ring != 2 && ring != 4)
            }
        }
    }

    /// A 5×5 alignment pattern: dark ring, light ring, dark centre.
    private mutating func drawAlignment(centreX: Int, centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(centreX + dx, centreY + dy, max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Writes the 15 format bits (already BCH-coded and XOR-masked) in both copies, plus the
    /// always-dark module (§7.9.1, Figure 25). Bit 0 is the least significant.
    mutating func drawFormatBits(_ bits: Int) {
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 != 0 }
        // First copy, around the top-left finder.
        for i in 0...5 { setFunction(8, i, bit(i)) }
        setFunction(8, 7, bit(6))
        setFunction(8, 8, bit(7))
        setFunction(7, 8, bit(8))
        for i in 9..<15 { setFunction(14 - i, 8, bit(i)) }
        // Second copy, split between the top-right and bottom-left finders.
        for i in 0..<8 { setFunction(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { setFunction(8, size - 15 + i, bit(i)) }
        setFunction(8, size - 8, true)
    }

    /// The two 6×3 version blocks for versions 7 and up (§7.10): 6 version bits and 12 BCH bits.
    private mutating func drawVersion(_ version: QRVersion) {
        guard version.number >= 7 else { return }
        let bits = QRFormatCode.versionBits(version.number)
        for i in 0..<18 {
            let isDark = (bits >> i) & 1 != 0
            let a = size - 11 + i % 3
            let b = i / 3
            setFunction(a, b, isDark)
            setFunction(b, a, isDark)
        }
    }

    /// Places the final codeword sequence in the two-column zig-zag of §7.7.3: from the
    /// bottom-right corner upwards, right column first, skipping the vertical timing column.
    /// Remainder bits stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        var bitIndex = 0
        let totalBits = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = ((right + 1) & 2) == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if bitIndex < totalBits {
                        let byte = codewords[bitIndex >> 3]
                        dark[y * size + x] = (byte >> UInt8(7 - (bitIndex & 7))) & 1 != 0
                    }
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// Flips every non-function module for which `mask` says so; applying it twice undoes it.
    mutating func apply(_ mask: QRMask) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && mask.inverts(x: x, y: y) {
                dark[y * size + x].toggle()
            }
        }
    }
}
