import Glibc
import Testing

/// A tiny tmpfs mounted on a fresh folder, for tests of what happens when the disk is full.
/// Needs root (CAP_SYS_ADMIN): under `CI=true` a failed mount fails the test, locally it skips.
public struct SmallTmpfs: Sendable {
    /// The mount point (mode 0700, owned by the user running the test).
    public let path: String
    private let parent: TemporaryDirectory?

    /// Mounts a tmpfs of `kilobytes` on `mountPoint` (an existing empty folder), or on a new
    /// folder under a temporary directory when nil.
    public init(kilobytes: Int, mountPoint: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        if let mountPoint {
            path = mountPoint
            parent = nil
        } else {
            let directory = try TemporaryDirectory(prefix: "latchkey-tmpfs-")
            path = directory.path + "/mnt"
            _ = mkdir(path, 0o700)
            parent = directory
        }
        let result = try ProcessRunner.run(
            "/bin/mount",
            [
                "-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700,uid=\(geteuid())",
                "tmpfs", path
            ])
        guard result.exitCode == 0 else {
            parent?.remove()
            throw try Requirement.missing(
                "cannot mount a tmpfs (run as root with CAP_SYS_ADMIN): \(result.stderrText)",
                sourceLocation: sourceLocation)
        }
    }

    /// Writes `path/name` until the file system refuses even one more byte.
    public func fill(_ name: String = "filler") throws {
        let fd = open(path + "/" + name, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let block = [UInt8](repeating: 0xAA, count: 4096)
        for size in [4096, 1] {
            while true {
                let written = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, size) }
                if written < 0 { try #require(errno == ENOSPC); break }
            }
        }
    }

    /// Frees what `fill` took.
    public func free(_ name: String = "filler") { unlink(path + "/" + name) }

    /// Unmounts (lazily, so an open descriptor cannot keep it busy) and removes the folder made for it.
    public func unmount() {
        _ = try? ProcessRunner.run("/bin/umount", ["-l", path])
        parent?.remove()
    }
}
