import Glibc

/// A fresh private directory (mode 0700) under `$TMPDIR` or /tmp, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    /// Absolute path of the directory.
    public let path: String

    /// Creates `<tmp>/<prefix>XXXXXX`.
    public init(prefix: String = "latchkey-test-") throws(SpawnError) {
        let base = HostEnvironment.current["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix)XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SpawnError(code: errno, executable: "mkdtemp")
        }
        path = String(cString: made)
    }

    /// Deletes the directory and everything in it.
    public func remove() {
        _ = try? ProcessRunner.run("/bin/rm", ["-rf", path], timeout: .seconds(30))
    }

    /// Reads a file under this directory (nil if missing).
    public func read(_ name: String) -> String? { FileText.read(path + "/" + name) }
}

/// Whole-file reads and writes for test fixtures.
public enum FileText {
    /// The file's contents as UTF-8, or nil when it cannot be read.
    public static func read(_ path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` to `path` with `mode` (created or truncated); false on failure.
    @discardableResult
    public static func write(_ text: String, to path: String, mode: mode_t = 0o600) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
}
