import Glibc
import LatchkeyHTTP

/// The folder holding token files, keys and locks (cli.md "Files").
package enum StateDirectory {
    /// `$STATE_DIRECTORY` (systemd `StateDirectory=`; the first entry when it lists several),
    /// else `$XDG_STATE_HOME/latchkey` (only when absolute, as the XDG spec requires),
    /// else `~/.local/state/latchkey`, with `~` from `$HOME` or the password database.
    static func defaultPath(environment: [String: String]) -> String {
        defaultPath(lookup: { environment[$0] })
    }

    /// `defaultPath(environment:)` over a variable lookup, so a caller need not build a dictionary.
    static func defaultPath(lookup environment: (String) -> String?) -> String {
        if let value = environment("STATE_DIRECTORY"), !value.isEmpty {
            let first = value.split(separator: ":", omittingEmptySubsequences: true).first.map(String.init) ?? value
            if !first.isEmpty { return first }
        }
        if let xdg = environment("XDG_STATE_HOME"), xdg.hasPrefix("/") {
            return trimmingTrailingSlashes(xdg) + "/latchkey"
        }
        return trimmingTrailingSlashes(homeDirectory(lookup: environment)) + "/.local/state/latchkey"
    }

    /// `$HOME`, else the effective user's home from the password database, else `/`.
    static func homeDirectory(lookup environment: (String) -> String?) -> String {
        if let home = environment("HOME"), !home.isEmpty { return home }
        if let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir {
            let home = String(cString: dir)
            if !home.isEmpty { return home }
        }
        return "/"
    }

    /// Creates `path` (and missing parents) with mode 0700, then checks that it is a directory
    /// owned by the effective user that nobody else can write to, since whoever can write the
    /// folder can swap files in it.
    package static func ensure(_ path: String) throws(TokenStoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .io(path: prefix, operation: "create directory", errno: errno)
            }
        }
        guard try checkExisting(path) else { throw .io(path: path, operation: "stat", errno: ENOENT) }
    }

    /// Checks an existing folder before anything is read from it, with the rules `ensure` applies
    /// before a write: a reader that trusts a folder others can write trusts whatever they put
    /// there. Creates nothing; false when the folder does not exist (so there is nothing to read).
    package static func checkExisting(_ path: String) throws(TokenStoreError) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return false }
            throw .io(path: path, operation: "stat", errno: code)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            // A symlinked state dir (an admin's choice) is fine if its target passes the checks.
            guard info.st_mode & S_IFMT == S_IFLNK, stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw .unsafePermissions(path: path, reason: "not a directory")
            }
            try checkDirectory(info, path: path)
            try checkAncestors(path)
            return true
        }
        try checkDirectory(info, path: path)
        try checkAncestors(path)
        return true
    }

    /// The folders above the state folder, by the rule every trust-deciding file follows
    /// (`ForeignWriter`): whoever can write one of them can rename the state folder away and put
    /// their own, with their keys and tokens, in its place. A sticky folder such as /tmp is fine.
    static func checkAncestors(_ path: String) throws(TokenStoreError) {
        let absolute = ForeignWriter.absolute(trimmingTrailingSlashes(path)).utf8
        guard let cut = absolute.lastIndex(of: UInt8(ascii: "/")) else { return }
        let parent = cut == absolute.startIndex ? "/" : String(decoding: absolute[..<cut], as: UTF8.self)
        if let writer = ForeignWriter.of(parent) {
            throw .unsafePermissions(path: path, reason: "\(writer), a folder above it (only you or root may be able to write there)")
        }
    }

    /// Owner is the effective user and group/others cannot write.
    static func checkDirectory(_ info: stat, path: String) throws(TokenStoreError) {
        let me = geteuid()
        guard info.st_uid == me else { throw .wrongOwner(path: path, owner: info.st_uid, expected: me) }
        guard info.st_mode & 0o022 == 0 else {
            throw .unsafePermissions(
                path: path,
                reason: "directory mode \(FileOwnershipPolicy.octal(info.st_mode)) lets group or others write to it (expected 0700)")
        }
    }

    package static func trimmingTrailingSlashes(_ path: String) -> String {
        // Bytes: `Substring.count` walks the characters, and this runs on every `token`.
        let bytes = Array(path.utf8)
        var end = bytes.count
        while end > 1 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == bytes.count ? path : String(decoding: bytes[..<end], as: UTF8.self)
    }
}
