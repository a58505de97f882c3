/// Draws a QR code in a terminal with half-block characters, two module rows per text line.
///
/// Terminals draw glyphs in the foreground colour, usually light on a dark background, so light
/// modules are drawn as glyphs and dark ones as blanks. With colours allowed the colours are set
/// explicitly (white on black), which also reads correctly on light-background terminals.
public struct QRTerminalRenderer: Sendable {
    /// Light modules around the symbol on each side (the standard asks for 4).
    public var quietZone: Int
    /// Emit ANSI colours to pin the palette.
    public var colour: Bool

    /// A renderer with `quietZone` light modules on each side, with or without ANSI colours.
    public init(quietZone: Int = 4, colour: Bool = false) {
        self.quietZone = max(quietZone, 0)
        self.colour = colour
    }

    /// The lines of text (each ending in a newline).
    public func render(_ code: QRCode) -> String {
        let span = code.size + 2 * quietZone
        func isLight(_ x: Int, _ y: Int) -> Bool {
            let cx = x - quietZone, cy = y - quietZone
            guard cx >= 0, cy >= 0, cx < code.size, cy < code.size else { return true }
            return !code[cx, cy]
        }
        var out = ""
        out.reserveCapacity((span + 16) * (span / 2 + 1) * 3)
        var y = 0
        while y < span {
            if colour { out += "\u{1B}[97;40m" }
            for x in 0..<span {
                let top = isLight(x, y)
                let bottom = y + 1 < span ? isLight(x, y + 1) : false
                switch (top, bottom) {
                case (true, true): out += "█"
                case (true, false): out += "▀"
                case (false, true): out += "▄"
                case (false, false): out += " "
                }
            }
            if colour { out += "\u{1B}[0m" }
            out += "\n"
            y += 2
        }
        return out
    }
}
