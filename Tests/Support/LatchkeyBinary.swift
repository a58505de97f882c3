import FoundationEssentials
import Glibc

/// Finds the `latchkey` executable the process-level tests drive.
public enum LatchkeyBinary {
    /// Why the binary could not be found.
    public struct NotFound: Error, CustomStringConvertible, Sendable {
        /// A readable explanation including the places searched.
        public let description: String
    }

    /// `LATCHKEY_BIN` when set, else the most recently modified `<root>/.build*/debug/latchkey`.
    ///
    /// Newest wins because each helper and CI build into their own scratch folder
    /// (`.build-NAME`); the one just built by the current `swift test` is the freshest.
    public static func locate(environment: [String: String] = HostEnvironment.current,
                              root: String = PackagePaths.root()) throws(NotFound) -> String {
        if let explicit = environment["LATCHKEY_BIN"], !explicit.isEmpty {
            guard access(explicit, X_OK) == 0 else {
                throw NotFound(description: "LATCHKEY_BIN=\(explicit) is not an executable file")
            }
            return explicit
        }
        var best: (path: String, mtime: Int) = ("", -1)
        for entry in directoryEntries(root) where entry.hasPrefix(".build") {
            for config in ["debug", "x86_64-unknown-linux-gnu/debug", "aarch64-unknown-linux-gnu/debug"] {
                let candidate = "\(root)/\(entry)/\(config)/latchkey"
                var info = stat()
                if stat(candidate, &info) == 0, access(candidate, X_OK) == 0,
                   (info.st_mode & S_IFMT) == S_IFREG, info.st_mtim.tv_sec > best.mtime {
                    best = (candidate, info.st_mtim.tv_sec)
                }
            }
        }
        guard best.mtime >= 0 else {
            throw NotFound(description: "no built latchkey under \(root)/.build*/debug; run `swift build` or set LATCHKEY_BIN")
        }
        return best.path
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
