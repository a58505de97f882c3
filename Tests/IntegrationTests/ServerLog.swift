import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport

/// One request as logged by the counting proxy (Glewlwyd) or the scripted server.
struct LoggedRequest {
    let raw: JSONValue
    var t: Double { raw.number("t") ?? 0 }
    var tDone: Double { raw.number("t_done") ?? 0 }
    var path: String { raw["path"]?.stringValue ?? "" }
    var method: String { raw["method"]?.stringValue ?? "" }
    var status: Int? { raw.number("status").map { Int($0) } }
    var error: String? { raw["error"]?.stringValue }
    var event: String? { raw["event"]?.stringValue }
    func param(_ name: String) -> String? { raw["params"]?[name]?.stringValue }
    var grantType: String? { param("grant_type") }
    var isDevicePoll: Bool { grantType == "urn:ietf:params:oauth:grant-type:device_code" }
    var isRefresh: Bool { grantType == "refresh_token" }
}

/// Reads a JSON-lines request log, optionally only the requests received after `since`.
enum ServerLog {
    static func read(_ path: String, since: Double = 0) -> [LoggedRequest] {
        let lines = (FileText.read(path) ?? "").split(separator: "\n").map(String.init)
        return JSONLines.objects(lines).map(LoggedRequest.init).filter { $0.t >= since }
    }

    /// Gaps between each device poll and the previous poll's response for the same device code
    /// (concurrent logins may interleave in one log), in seconds, in time order.
    static func pollGaps(_ requests: [LoggedRequest]) -> [Double] {
        let polls = requests.filter(\.isDevicePoll).sorted { $0.t < $1.t }
        var lastDone: [String: Double] = [:]
        var gaps: [Double] = []
        for poll in polls {
            let code = poll.param("device_code") ?? ""
            if let previous = lastDone[code] { gaps.append(poll.t - previous) }
            lastDone[code] = poll.tDone
        }
        return gaps
    }
}

/// Wall-clock time in seconds, comparable with the logs' `t`.
func wallClock() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The `alg` in a compact JWS header, or nil.
func jwsAlgorithm(_ token: String) -> String? {
    guard let head = token.split(separator: ".").first,
        let bytes = try? Base64URL.decode(head),
        let header = try? JSONParser().parse(bytes)
    else { return nil }
    return header["alg"]?.stringValue
}

extension String {
    /// Without surrounding whitespace and newlines (FoundationEssentials lacks trimmingCharacters).
    var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
