import LatchkeyHTTP

/// A protected resource's identifier as RFC 9728 §1.2 and the CLI contract define it: the URL's
/// scheme, host, port and path, without query or fragment; an empty path is `/` (a root resource is
/// written `https://api.example/`, as the mcp SDK's metadata does). Default ports are left out, so
/// `https://api.example:443/x` and `https://api.example/x` are the same resource.
package struct ResourceIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The origin (`scheme://host[:port]`, RFC 6454).
    package let origin: String
    /// The path, `/` at least.
    package let path: String

    /// The identifier of the resource `url` belongs to.
    package init(_ url: HTTPURL) {
        origin = url.origin
        path = url.path.isEmpty ? "/" : url.path
    }

    /// The identifier a metadata document's `resource` names; nil when it is not an https URL
    /// (http for loopback) or carries a query or a fragment (RFC 9728 §2: it has neither).
    package init?(named text: String) {
        guard let url = HTTPURL(string: text), url.query == nil, url.fragment == nil else { return nil }
        self.init(url)
    }

    /// `origin` + `path`.
    package var description: String { origin + path }

    /// True when `self` (a resource named by metadata) covers `other` (the URL's): the same origin,
    /// and a path that is `other`'s or a prefix of it ending at a `/` boundary (`/api` covers
    /// `/api` and `/api/x`, never `/apix`).
    package func covers(_ other: ResourceIdentifier) -> Bool {
        guard origin == other.origin else { return false }
        if path == other.path { return true }
        let base = path.hasSuffix("/") ? path : path + "/"
        return other.path.hasPrefix(base)
    }

    /// RFC 9728 §3.1: the metadata's well-known URL, `/.well-known/oauth-protected-resource`
    /// inserted between the host and the path, the path's lone `/` left out.
    package func wellKnownURL() -> HTTPURL? {
        HTTPURL(string: origin + "/.well-known/oauth-protected-resource" + (path == "/" ? "" : path))
    }
}
