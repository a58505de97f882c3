import Glibc
import LatchkeyJOSE

/// Reads and writes `<state-dir>/profiles/NAME.json`. Files are written atomically (temporary
/// file, fsync, rename) with mode 0600, in folders made 0700. A file that is a symbolic link,
/// owned by another user, or writable by others is refused: it decides where tokens are sent.
struct ProfileStore: Sendable {
    /// The state directory.
    let stateDirectory: String

    /// `<state-dir>/profiles`.
    var directory: String { stateDirectory + "/profiles" }

    /// `<state-dir>/profiles/NAME.json`.
    func path(for profile: String) -> String { directory + "/" + profile + ".json" }

    /// The profile's settings, or nil when it has never been signed in.
    func load(_ profile: String) throws(ProfileFileError) -> ProfileSettings? {
        let path = path(for: profile)
        guard let bytes = try readFile(path) else { return nil }
        let object: JSONObject
        do { object = try JSONParser().parseObject(bytes) } catch {
            throw .invalid(path: path, reason: error.description)
        }
        return try ProfileSettings(json: object, path: path)
    }

    /// Writes the profile's settings.
    func save(_ settings: ProfileSettings, profile: String) throws(ProfileFileError) {
        try makeDirectory(stateDirectory)
        try makeDirectory(directory)
        let path = path(for: profile)
        let text = settings.json.prettyJSONText + "\n"
        let temporary = directory + "/." + profile + ".json.tmp-" + String(getpid())
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: temporary, operation: "create", errno: errno) }
        var ok = false
        defer { if !ok { unlink(temporary) } }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { let e = errno; close(fd); throw .io(path: path, operation: "write", errno: e) }
            offset += n
        }
        guard fchmod(fd, 0o600) == 0, fsync(fd) == 0 else { let e = errno; close(fd); throw .io(path: path, operation: "write", errno: e) }
        close(fd)
        guard rename(temporary, path) == 0 else { throw .io(path: path, operation: "replace", errno: errno) }
        ok = true
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 { _ = fsync(dirFD); close(dirFD) }
    }

    /// The names of every profile with a settings file, sorted.
    func list() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            names.append(String(name.dropLast(5)))
        }
        return names.sorted()
    }

    private func readFile(_ path: String) throws(ProfileFileError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw .unsafe(path: path, reason: "is a symbolic link") }
            throw .io(path: path, operation: "open", errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unsafe(path: path, reason: "not a regular file") }
        guard info.st_uid == geteuid() else {
            throw .unsafe(path: path, reason: "owned by uid \(info.st_uid), expected uid \(geteuid())")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .unsafe(path: path, reason: "group or others can write it (run chmod 600)")
        }
        guard info.st_size <= 65_536 else { throw .invalid(path: path, reason: "larger than 64 KiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var total = 0
        while total < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .io(path: path, operation: "read", errno: errno) }
            if n == 0 { break }
            total += n
        }
        return Array(bytes[..<total])
    }

    private func makeDirectory(_ path: String) throws(ProfileFileError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw .io(path: prefix, operation: "create directory", errno: errno)
            }
        }
    }
}
