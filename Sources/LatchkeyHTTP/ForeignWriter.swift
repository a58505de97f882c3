import Glibc

/// Someone other than the effective user and root who can change what a path names: the owner of
/// the file or of a folder above it, or a group or everyone through a write bit.
///
/// A file that decides whom Latchkey trusts (a CA bundle, a state folder holding keys and tokens)
/// is only as safe as every folder above it: whoever can write a folder can rename the file away
/// and put their own in its place. One rule, used for every such file.
public struct ForeignWriter: Sendable, Equatable, CustomStringConvertible {
    /// Who can write.
    public enum Who: Sendable, Equatable {
        /// The entry belongs to this user id.
        case owner(UInt32)
        /// The entry's group may write (mode g+w), and the entry is not a sticky folder.
        case group(UInt32)
        /// Everyone may write (mode o+w), and the entry is not a sticky folder.
        case everyone
        /// The path does not resolve within `ForeignWriter.linkLimit` symbolic links (or a link
        /// cannot be read), so nothing can be said of who controls its target.
        case unresolvedLink
    }

    /// The entry (the file itself or a folder above it) that lets them write.
    public let path: String
    public let who: Who

    public init(path: String, who: Who) {
        self.path = path
        self.who = who
    }

    public var description: String {
        switch who {
        case .owner(let uid): return "\(path) belongs to uid \(uid)"
        case .group(let gid): return "group \(gid) can write \(path)"
        case .everyone: return "everyone can write \(path)"
        case .unresolvedLink: return "\(path) does not resolve (a loop of symbolic links?)"
        }
    }

    /// Symbolic links followed before giving up (as the kernel's own limit, ELOOP).
    static let linkLimit = 40

    /// The first foreign writer of `path`, walking from `/` down: every folder above it and the
    /// entry itself must belong to the effective user or root and be writable by nobody else. A
    /// sticky folder that others may write (as `/tmp`) is accepted: there nobody can rename or
    /// remove an entry they do not own, and the entry below it is checked in its turn. Symbolic
    /// links are followed, and both the link's folder and its target's folders are checked.
    /// A missing entry stops the walk: nothing can be trusted through it, and the caller's open
    /// reports that it is missing.
    public static func of(_ path: String, euid: UInt32 = geteuid()) -> ForeignWriter? {
        var links = 0
        return walk(Array(absolute(path).utf8), euid: euid, links: &links)
    }

    // The walk works on the path's bytes, not on `String` components: `token` runs it on every
    // call (the state folder's ancestors), and splitting, enumerating and joining `Substring`s cost
    // it ~130 K instructions, most of them the runtime instantiating generic metadata on first use.
    private static let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")

    private static func walk(_ path: [UInt8], euid: UInt32, links: inout Int) -> ForeignWriter? {
        if let problem = check([slash], euid: euid) { return problem }
        var prefix: [UInt8] = []
        prefix.reserveCapacity(path.count + 1)
        var start = 0
        let end = path.count
        while start < end {
            while start < end && path[start] == slash { start += 1 }
            if start == end { break }
            var stop = start
            while stop < end && path[stop] != slash { stop += 1 }
            defer { start = stop }
            let length = stop - start
            if length == 1 && path[start] == dot { continue }
            if length == 2 && path[start] == dot && path[start + 1] == dot {
                // Lexically: `..` after a checked folder names a folder above it, which is checked.
                if let cut = prefix.lastIndex(of: slash) { prefix.removeSubrange(cut...) }
                continue
            }
            prefix.append(slash)
            prefix.append(contentsOf: path[start..<stop])
            var info = stat()
            guard withCString(prefix, { lstat($0, &info) }) == 0 else { return nil }
            if info.st_mode & S_IFMT == S_IFLNK {
                links += 1
                guard links <= linkLimit, let target = readLink(prefix) else {
                    return ForeignWriter(path: text(prefix), who: .unresolvedLink)
                }
                var next: [UInt8] = target
                if target.first != slash {
                    next = Array(prefix[..<(prefix.lastIndex(of: slash) ?? 0)])
                    next.append(slash)
                    next.append(contentsOf: target)
                }
                next.append(contentsOf: path[stop...])
                return walk(next, euid: euid, links: &links)
            }
            if let who = verdict(info, euid: euid) { return ForeignWriter(path: text(prefix), who: who) }
        }
        return nil
    }

    /// The verdict on one entry from its `stat`.
    public static func check(_ path: String, info: stat, euid: UInt32 = geteuid()) -> ForeignWriter? {
        verdict(info, euid: euid).map { ForeignWriter(path: path, who: $0) }
    }

    private static func verdict(_ info: stat, euid: UInt32) -> Who? {
        if info.st_uid != euid && info.st_uid != 0 { return .owner(info.st_uid) }
        let sticky = info.st_mode & S_IFMT == S_IFDIR && info.st_mode & S_ISVTX != 0
        if sticky { return nil }
        if info.st_mode & 0o002 != 0 { return .everyone }
        if info.st_mode & 0o020 != 0 { return .group(info.st_gid) }
        return nil
    }

    private static func check(_ path: [UInt8], euid: UInt32) -> ForeignWriter? {
        var info = stat()
        guard withCString(path, { stat($0, &info) }) == 0 else { return nil }
        return verdict(info, euid: euid).map { ForeignWriter(path: text(path), who: $0) }
    }

    /// Calls `body` with `path` as a NUL-terminated C string.
    private static func withCString<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        var terminated = path
        terminated.append(0)
        return terminated.withUnsafeBufferPointer { bytes in
            bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { body($0) }
        }
    }

    private static func text(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }

    private static func readLink(_ path: [UInt8]) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = withCString(path) { name in
            buffer.withUnsafeMutableBufferPointer { out in
                out.baseAddress!.withMemoryRebound(to: CChar.self, capacity: out.count) { readlink(name, $0, out.count - 1) }
            }
        }
        guard count > 0 else { return nil }
        return Array(buffer[..<count])
    }

    /// `path` made absolute against the working directory.
    public static func absolute(_ path: String) -> String {
        if path.utf8.first == slash { return path }
        // The working directory goes into stack memory, not a zero-filled 4 KiB array: `token`
        // makes its state folder absolute several times per call.
        let capacity = Int(PATH_MAX) + 1
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { out -> String in
            let base = out.baseAddress!
            let found = base.withMemoryRebound(to: CChar.self, capacity: capacity) { getcwd($0, capacity) != nil }
            guard found else { return "/" + path }
            let length = base.withMemoryRebound(to: CChar.self, capacity: capacity) { strlen($0) }
            var joined: [UInt8] = []
            joined.reserveCapacity(length + 1 + path.utf8.count)
            joined.append(contentsOf: UnsafeBufferPointer(start: base, count: length))
            if joined != [slash] { joined.append(slash) }
            joined.append(contentsOf: path.utf8)
            return String(decoding: joined, as: UTF8.self)
        }
    }
}
