import FoundationEssentials
import Latchkey
import LatchkeyHTTP

// Conveniences for programs that already use Foundation: pass `Date`, `URL` and `Data` in, and get
// them back out, while the core stays Foundation-free (a CLI that never links this module is 7 MB
// smaller). This is the only module of the package that imports Foundation.

extension Timestamp {
    /// The same instant as `date`.
    public init(_ date: Date) { self.init(timeIntervalSince1970: date.timeIntervalSince1970) }
    /// The same instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: timeIntervalSince1970) }
}

extension Date {
    /// The same instant as `timestamp`.
    public init(_ timestamp: Timestamp) { self.init(timeIntervalSince1970: timestamp.timeIntervalSince1970) }
}

extension HTTPURL {
    /// `url` when it obeys Latchkey's rules (https, or http to loopback; strict RFC 3986); nil otherwise.
    public init?(_ url: URL) { self.init(string: url.absoluteString) }
    /// The same URL as a Foundation `URL`.
    public var url: URL {
        // Everything `HTTPURL` accepts is a valid RFC 3986 URI, which `URL` parses.
        URL(string: absoluteString)!
    }
}

extension URL {
    /// The same URL as `url`.
    public init(_ url: HTTPURL) { self = url.url }
}

extension HTTPRequest {
    /// A request with a `Data` body.
    public init(
        method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: Data,
        maxRedirects: Int = 0, timeout: Double = 30
    ) throws(HTTPError) {
        self.init(
            method: method, url: try HTTPURL.parse(url.absoluteString), headers: headers, body: [UInt8](body),
            maxRedirects: maxRedirects, timeout: timeout)
    }
    /// The body as `Data`.
    public var bodyData: Data { Data(body) }
}

extension HTTPResponse {
    /// The body as `Data`.
    public var bodyData: Data { Data(body) }
    /// The server's `Date` header as a `Date`.
    public var serverFoundationDate: Date? { serverDate?.date }
}

extension Token {
    /// When the access token expires, as a `Date`.
    public var expirationDate: Date? { expiresAt?.date }
    /// True when the token is still good for at least `minTTL` seconds at `date`.
    public func isValid(at date: Date, minTTL: Double = 0) -> Bool { isValid(at: Timestamp(date), minTTL: minTTL) }
}

extension ClientConfiguration {
    /// A configuration for `issuer` given as a `URL` (checked with `HTTPURL`'s rules).
    public init(issuer: URL, clientID: String, scopes: [String] = ClientConfiguration.defaultScopes) throws(HTTPError) {
        let checked = try HTTPURL.parse(issuer.absoluteString)
        self.init(issuer: checked.absoluteString, clientID: clientID, scopes: scopes)
    }
}

extension StoredSession {
    /// When the session was first saved, as a `Date`.
    public var creationDate: Date { createdAt.date }
    /// When the session was last saved, as a `Date`.
    public var updateDate: Date { updatedAt.date }
}

/// A `TimeSource` driven by a closure returning `Date`, for programs whose clock is a `Date` (a
/// test's fixed date, say). Sleeping uses `Task.sleep`.
public struct FoundationTimeSource: TimeSource {
    let currentDate: @Sendable () -> Date
    /// A time source reading `currentDate` (default: the system clock).
    public init(currentDate: @escaping @Sendable () -> Date = { Date() }) { self.currentDate = currentDate }
    public func now() -> Timestamp { Timestamp(currentDate()) }
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { try Task.checkCancellation(); return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
