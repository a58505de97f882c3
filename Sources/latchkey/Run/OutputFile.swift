import Glibc
import LatchkeyCrypto
import LatchkeyHTTP
import Synchronization

/// `fetch --output FILE`: the response lands whole or not at all. The body streams into a
/// temporary file in the same folder (0600: a response may hold personal data), which is fsynced
/// and renamed over FILE only once the whole answer has arrived. On any failure (a cut connection,
/// a body over the limit, a signal) the temporary file is deleted, so FILE keeps its old contents
/// and no half-written file is left behind. The temporary name is unpredictable and opened with
/// O_EXCL|O_NOFOLLOW, so a file or link someone planted in the folder can neither block the write
/// nor be written through, and only the file this process created is ever deleted.
final class OutputFile: HTTPBodySink {
    let path: String
    let temporary: String
    private let fd: Int32
    private let finished = Atomic<Bool>(false)

    /// Names tried before giving up when each one is taken (a collision of 96 random bits is
    /// someone's doing, not chance).
    static let attempts = 8

    /// Creates the temporary file `.NAME.latchkey-SUFFIX` next to `path` (before any request is
    /// sent, so a folder that cannot be written fails first); a name that exists is never
    /// touched, another suffix is drawn. `suffix` is the random one but for tests.
    init(stagingFor path: String, suffix: () throws -> String = OutputFile.randomSuffix) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        self.path = path
        var tries = 0
        while true {
            let candidate = directory + "/." + name + ".latchkey-" + (try suffix())
            let opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if opened >= 0 {
                temporary = candidate
                fd = opened
                return
            }
            let code = errno
            if code == EINTR { continue }
            tries += 1
            // Thrown before every property is set, so no deinit runs and nothing is unlinked.
            guard code == EEXIST, tries < Self.attempts else { throw Self.failure(path, "create a temporary file next to", code) }
        }
    }

    /// 96 bits from the system random source, as 24 lower-case hex digits.
    static func randomSuffix() throws -> String {
        let bytes: [UInt8]
        do { bytes = try SecureRandom().bytes(12) } catch {
            throw CommandFailure(
                exitCode: 1, code: "internal_error", message: "the system random source failed: \(error)",
                hint: "check that getrandom(2) works in this environment")
        }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    func write(_ bytes: ArraySlice<UInt8>) throws {
        if let code = StandardOutput.writeAll(fd, bytes) { throw Self.failure(path, "write", code) }
    }

    /// Makes the file FILE: fsync, close, rename.
    func commit() throws {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard fsync(fd) == 0 else { let e = errno; close(fd); unlink(temporary); throw Self.failure(path, "write", e) }
        close(fd)
        guard rename(temporary, path) == 0 else { let e = errno; unlink(temporary); throw Self.failure(path, "replace", e) }
    }

    /// Deletes the temporary file unless `commit` ran; FILE is untouched.
    func discard() {
        guard !finished.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(fd)
        unlink(temporary)
    }

    deinit { discard() }

    /// Writes a small file whole or not at all (the `--qr-file` image, replaced for each new code).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try OutputFile(stagingFor: path)
        try file.write(bytes[...])
        try file.commit()
    }

    static func failure(_ path: String, _ operation: String, _ code: Int32) -> CommandFailure {
        CommandFailure(
            exitCode: 9, code: "storage_error", message: "cannot \(operation) \(path): \(ErrnoText.describe(code))",
            hint: "check the folder of the file and its permissions")
    }
}

/// `fetch` without `--output`: the body goes to stdout as it arrives, byte for byte.
struct StandardOutput: HTTPBodySink {
    func write(_ bytes: ArraySlice<UInt8>) throws {
        if let code = Self.writeAll(1, bytes) {
            // As curl's exit 23: a full disk behind `>` is not a success, and a script must not take
            // a cut-short body for the whole answer. (A closed pipe raises SIGPIPE first, as for any
            // filter; EPIPE lands here only where SIGPIPE is ignored.)
            throw CommandFailure(
                exitCode: 9, code: "storage_error",
                message: "cannot write the response to standard output: \(ErrnoText.describe(code))",
                hint: "use --output FILE, or check where stdout goes")
        }
    }

    /// Writes every byte to `fd` (a short write or EINTR continues); the errno of a failure, else nil.
    static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int32? {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return n < 0 ? errno : EIO }
            offset += n
        }
        return nil
    }
}
