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
        return walk(absolute(path), euid: euid, links: &links)
    }

    private static func walk(_ path: String, euid: UInt32, links: inout Int) -> ForeignWriter? {
        var prefix = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        if let problem = check("/", euid: euid) { return problem }
        for (index, component) in components.enumerated() {
            if component == "." { continue }
            if component == ".." {
                // Lexically: `..` after a checked folder names a folder above it, which is checked.
                if let cut = prefix.lastIndex(of: "/") { prefix = String(prefix[..<cut]) }
                continue
            }
            prefix += "/" + component
            var info = stat()
            guard lstat(prefix, &info) == 0 else { return nil }
            if info.st_mode & S_IFMT == S_IFLNK {
                links += 1
                guard links <= linkLimit, let target = readLink(prefix) else {
                    return ForeignWriter(path: prefix, who: .unresolvedLink)
                }
                let rest = components[(index + 1)...].joined(separator: "/")
                let parent = prefix[..<(prefix.lastIndex(of: "/") ?? prefix.startIndex)]
                let resolved = target.hasPrefix("/") ? target : String(parent) + "/" + target
                return walk(rest.isEmpty ? resolved : resolved + "/" + rest, euid: euid, links: &links)
            }
            if let problem = check(prefix, info: info, euid: euid) { return problem }
        }
        return nil
    }

    /// The verdict on one entry from its `stat`.
    public static func check(_ path: String, info: stat, euid: UInt32 = geteuid()) -> ForeignWriter? {
        if info.st_uid != euid && info.st_uid != 0 { return ForeignWriter(path: path, who: .owner(info.st_uid)) }
        let sticky = info.st_mode & S_IFMT == S_IFDIR && info.st_mode & S_ISVTX != 0
        if sticky { return nil }
        if info.st_mode & 0o002 != 0 { return ForeignWriter(path: path, who: .everyone) }
        if info.st_mode & 0o020 != 0 { return ForeignWriter(path: path, who: .group(info.st_gid)) }
        return nil
    }

    private static func check(_ path: String, euid: UInt32) -> ForeignWriter? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return check(path, info: info, euid: euid)
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute against the working directory.
    public static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" + path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cwd == "/" ? "" : cwd) + "/" + path
    }
}
