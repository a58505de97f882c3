import FoundationEssentials
import Glibc

/// Finds the `latchkey` executable the process-level tests drive.
public enum LatchkeyBinary {
    /// Why the binary could not be found.
    public struct NotFound: Error, CustomStringConvertible, Sendable {
        /// A readable explanation including the places searched.
        public let description: String
    }

    /// `LATCHKEY_BIN` when set; else the `latchkey` built beside the running test executable (the
    /// same `swift test` build); else the most recently modified `<root>/.build*/debug/latchkey`.
    ///
    /// Beside the test executable first: "newest of any build folder" once picked an
    /// AddressSanitizer build (`.build-asan`) made a minute earlier, whose shadow memory failed the
    /// streaming test's memory bound (151 MiB peak against a 16 MiB baseline).
    public static func locate(
        environment: [String: String] = HostEnvironment.current,
        root: String = PackagePaths.root(),
        testExecutable: String? = currentExecutable()
    ) throws(NotFound) -> String {
        if let explicit = environment["LATCHKEY_BIN"], !explicit.isEmpty {
            guard access(explicit, X_OK) == 0 else {
                throw NotFound(description: "LATCHKEY_BIN=\(explicit) is not an executable file")
            }
            return explicit
        }
        if let testExecutable, let slash = testExecutable.lastIndex(of: "/") {
            let beside = String(testExecutable[..<slash]) + "/latchkey"
            if access(beside, X_OK) == 0 { return beside }
        }
        var best: (path: String, mtime: Int) = ("", -1)
        for entry in directoryEntries(root) where entry.hasPrefix(".build") {
            for config in ["debug", "x86_64-unknown-linux-gnu/debug", "aarch64-unknown-linux-gnu/debug"] {
                let candidate = "\(root)/\(entry)/\(config)/latchkey"
                var info = stat()
                if stat(candidate, &info) == 0, access(candidate, X_OK) == 0,
                    (info.st_mode & S_IFMT) == S_IFREG, info.st_mtim.tv_sec > best.mtime
                {
                    best = (candidate, info.st_mtim.tv_sec)
                }
            }
        }
        guard best.mtime >= 0 else {
            throw NotFound(description: "no built latchkey under \(root)/.build*/debug; run `swift build` or set LATCHKEY_BIN")
        }
        return best.path
    }

    /// The running program's path (`/proc/self/exe`), or nil.
    public static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func directoryEntries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            names.append(name)
        }
        return names
    }
}
