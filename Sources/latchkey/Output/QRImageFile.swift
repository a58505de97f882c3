import Glibc
import LatchkeyHTTP
import LatchkeyQR
import Synchronization

/// `login --qr-file FILE.svg|FILE.png`: the QR code of the verification address as an image for a
/// kiosk's own screen. Each write replaces the file atomically (a viewer never reads half an
/// image; `OutputFile`), a new code replaces the old image, and `remove` deletes it when the login
/// ends, however it ends, so a stale code is never left on display.
final class QRImageFile: Sendable {
    /// The image formats, by the file name's extension.
    enum Format: Sendable { case svg, png }

    let path: String
    let format: Format
    private let written = Mutex(false)

    /// Pixels per module, and the quiet zone in modules (ISO/IEC 18004 asks for 4).
    static let scale = 8
    static let quietZone = 4

    /// A file at `path`, whose extension (`.svg` or `.png`, any case) picks the format.
    init(path: String) throws {
        let lower = String(decoding: path.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
        if lower.hasSuffix(".svg") {
            format = .svg
        } else if lower.hasSuffix(".png") {
            format = .png
        } else {
            throw UsageError("--qr-file must name a .svg or .png file, got '\(path)'", command: .login)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard name.count > 4 else { throw UsageError("--qr-file needs a file name, got '\(path)'", command: .login) }
        try Self.checkFolder(of: path)
        self.path = path
    }

    /// The folder must exist and be writable now, before anything is sent: a kiosk whose image
    /// cannot be written would show a blank screen for the whole life of the code.
    static func checkFolder(of path: String) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let hint = "create the folder, writable by the user latchkey runs as, or name another; nothing was sent"
        var info = stat()
        guard stat(folder, &info) == 0 else {
            let code = errno
            throw UsageError(
                code == ENOENT
                    ? "--qr-file: the folder \(folder) does not exist"
                    : "--qr-file: cannot use the folder \(folder): \(ErrnoText.describe(code))",
                command: .login, hint: hint)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw UsageError("--qr-file: \(folder) is not a folder", command: .login, hint: hint)
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw UsageError(
                "--qr-file: the folder \(folder) is not writable (\(ErrnoText.describe(errno)))", command: .login,
                hint: hint)
        }
    }

    /// The image bytes of the QR code of `text`.
    func image(of text: String) throws -> [UInt8] {
        let code = try QRCode(text: text)
        switch format {
        case .svg: return SVGWriter.svg(code, scale: Self.scale, quietZone: Self.quietZone)
        case .png: return PNGWriter.png(code, scale: Self.scale, quietZone: Self.quietZone)
        }
    }

    /// Writes (or replaces) the image of `text`.
    func write(_ text: String) throws {
        try OutputFile.write(try image(of: text), to: path)
        written.withLock { $0 = true }
    }

    /// Deletes the image this login wrote; a file it never wrote is left alone.
    func remove() {
        if written.withLock({ $0 }) { _ = unlink(path) }
    }
}
