import Glibc
import Testing

/// Reads QR images back with external tools, as a phone would: zbarimg (through ImageMagick it
/// reads PGM, PNG and SVG), and rsvg-convert to rasterise SVG with a second, independent renderer.
/// A missing tool fails under CI=true and skips locally (``Requirement``).
public enum QRImageDecoder {
    /// The zbarimg executable (Debian zbar-tools).
    public static func zbarimg() throws -> String {
        try tool("/usr/bin/zbarimg", package: "zbar-tools")
    }

    /// The rsvg-convert executable (Debian librsvg2-bin).
    public static func rsvgConvert() throws -> String {
        try tool("/usr/bin/rsvg-convert", package: "librsvg2-bin")
    }

    private static func tool(_ path: String, package: String) throws -> String {
        try Requirement.requireOrSkip(
            access(path, X_OK) == 0 ? path : nil,
            "\(path) is not installed (apt-get install \(package))")
    }

    /// Runs zbarimg on `file`, QR symbology only; the result's stdout is the raw text and a newline.
    public static func zbarimg(file: String) throws -> ProcessResult {
        try ProcessRunner.run(try zbarimg(), ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", file], timeout: .seconds(30))
    }

    /// Writes `bytes` to `path` (created or truncated, mode 0600); false on failure.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    /// Turns half-block terminal text back into a PGM (light glyph halves white, blanks black),
    /// so a QR code drawn on a terminal can be handed to zbarimg.
    public static func pgm(fromTerminalText text: String, scale: Int = 4) -> [UInt8] {
        let lines = text.split(separator: "\n").map { Array($0) }
        let width = lines.map(\.count).max() ?? 0
        var rows: [[Bool]] = []  // true = light
        for line in lines {
            var top: [Bool] = [], bottom: [Bool] = []
            for x in 0..<width {
                let c = x < line.count ? line[x] : " "
                top.append(c == "█" || c == "▀")
                bottom.append(c == "█" || c == "▄")
            }
            rows.append(top)
            rows.append(bottom)
        }
        var out = Array("P5\n\(width * scale) \(rows.count * scale)\n255\n".utf8)
        for row in rows {
            for _ in 0..<scale {
                for light in row { out += Array(repeating: light ? 255 : 0, count: scale) }
            }
        }
        return out
    }
}
