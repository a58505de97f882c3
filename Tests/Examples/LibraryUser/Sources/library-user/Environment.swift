import Glibc

/// The process environment, for `HTTPClient.Configuration.fromEnvironment` (`SSL_CERT_FILE`,
/// `HTTPS_PROXY`, `NO_PROXY`); read from Glibc's `environ`, so no Foundation is needed.
func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let pair = String(cString: entry)
        if let equals = pair.firstIndex(of: "=") {
            result[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        cursor += 1
    }
    return result
}
