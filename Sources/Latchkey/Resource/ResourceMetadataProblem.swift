/// Why a protected resource's metadata (RFC 9728) was not used. Cases carry what was expected and
/// what arrived; the program words them (the CLI: exit 7).
public enum ResourceMetadataProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// A challenge's `resource_metadata` is on another origin than the resource: not fetched.
    case otherOrigin(metadataURL: String, resourceOrigin: String)
    /// A challenge's `resource_metadata` is not an https URL (http for loopback).
    case unusableURL(String)
    /// The metadata URL answered with another status than 200.
    case status(url: String, status: Int)
    /// The answer is not one JSON object.
    case notJSON(url: String)
    /// The answer is larger than the limit, in bytes.
    case tooLarge(url: String, limit: Int)
    /// A member was refused.
    case document(url: String, DocumentError)
    /// `resource` names another resource than the URL's (RFC 9728 §3.3).
    case resourceMismatch(expected: String, got: String)
    /// The metadata names no authorization server.
    case noAuthorizationServer(resource: String)

    /// One line (server text is the caller's to make terminal-safe).
    public var description: String {
        switch self {
        case .otherOrigin(let url, let origin):
            return "the resource's metadata \(url) is not on its own origin \(origin): not fetched"
        case .unusableURL(let url): return "resource_metadata \(url) is not an https URL (http only to loopback)"
        case .status(let url, let status): return "\(url) answered HTTP \(status)"
        case .notJSON(let url): return "\(url) is not a JSON object"
        case .tooLarge(let url, let limit): return "\(url) is larger than \(limit) bytes"
        case .document(let url, let e): return "\(url): \(e)"
        case .resourceMismatch(let expected, let got):
            return "the resource's metadata names resource \"\(got)\", expected \"\(expected)\""
        case .noAuthorizationServer(let resource): return "the metadata of \(resource) names no authorization server"
        }
    }
}
