import Glibc
import Testing

/// Where things are, and what to do when a needed tool is missing: fail under CI=true, skip visibly otherwise.
enum TestEnvironment {
    /// <root>/Tests/LatchkeyHTTPTests/Support/TestEnvironment.swift → <root>
    static let packageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    static var harnessDirectory: String { packageRoot + "/Tests/Harness/http" }

    static var isCI: Bool { getenv("CI").map { String(cString: $0) == "true" } ?? false }

    /// The full path of `tool` on PATH, or nil.
    static func which(_ tool: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(tool)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// True when every tool is present. Otherwise records an issue under CI (the test fails) or prints
    /// the reason (the test is skipped locally).
    static func require(_ tools: [String], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let missing = tools.filter { which($0) == nil }
        if missing.isEmpty { return true }
        let reason = "missing tools: \(missing.joined(separator: ", "))"
        if isCI {
            Issue.record(Comment(rawValue: reason + " (required when CI=true)"), sourceLocation: sourceLocation)
        } else {
            print("SKIPPED (\(reason))")
        }
        return false
    }

    /// A fresh private temporary directory.
    static func makeTemporaryDirectory() -> String {
        var template = Array("/tmp/latchkey-http-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func readFile(_ path: String) -> String {
        guard let f = fopen(path, "r") else { return "" }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out += buf[..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func writeFile(_ path: String, _ text: String) {
        let f = fopen(path, "w")!
        _ = text.withCString { fputs($0, f) }
        fclose(f)
    }

    /// Waits until something accepts TCP connections on 127.0.0.1:`port`, until `timeout` has passed
    /// (a deadline, not a count of attempts: a slow connect counts against it too).
    static func waitForPort(_ port: Int, timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if rc == 0 { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(20_000)
        }
    }
}
