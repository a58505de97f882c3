import LatchkeyHTTP
import LatchkeyJOSE

/// Finds the metadata of the resource behind a URL (RFC 9728), and the issuer it names. Bounded
/// like issuer discovery: one GET, no redirect followed, `maxDocumentBytes` and `timeout`. What is
/// trusted, and why:
/// - the well-known document (§3.1) must name exactly the URL's resource identifier (§3.3);
/// - a challenge's `resource_metadata` (§5.1) is fetched only from the URL's own origin (a 401 is
///   not authenticated; another origin would let it point the client anywhere), and its `resource`
///   must cover the URL: same origin, the URL's path or a prefix of it at a `/` boundary;
/// - only https, or http to loopback (`HTTPURL`).
/// No token is ever sent here.
package enum ProtectedResourceDiscovery {
    /// At most this many bytes of metadata are read.
    package static let maxDocumentBytes = 64 * 1024
    /// Each metadata request's deadline, in seconds.
    package static let timeout: Double = 10

    /// The metadata at `url`'s well-known location, or nil when there is none there (any status
    /// but 200: most resources publish none).
    package static func wellKnownMetadata(for url: HTTPURL, transport: any HTTPTransport) async throws(LatchkeyError)
        -> ProtectedResourceMetadata?
    {
        let identifier = ResourceIdentifier(url)
        guard let location = identifier.wellKnownURL() else { return nil }
        let response = try await get(location, transport: transport)
        guard response.status == 200 else { return nil }
        let metadata = try read(response, from: location)
        guard metadata.identifier == identifier else {
            throw .resourceMetadata(.resourceMismatch(expected: identifier.description, got: metadata.resource))
        }
        return metadata
    }

    /// The metadata a challenge's `resource_metadata` names, for a request to `url`: refused before
    /// any request when it is on another origin.
    package static func challengedMetadata(_ location: String, for url: HTTPURL, transport: any HTTPTransport)
        async throws(LatchkeyError) -> ProtectedResourceMetadata
    {
        let target = try checkedLocation(location, for: url)
        let response = try await get(target, transport: transport)
        guard response.status == 200 else {
            throw .resourceMetadata(.status(url: target.absoluteString, status: response.status))
        }
        let metadata = try read(response, from: target)
        let identifier = ResourceIdentifier(url)
        guard let named = metadata.identifier, named.covers(identifier) else {
            throw .resourceMetadata(.resourceMismatch(expected: identifier.description, got: metadata.resource))
        }
        return metadata
    }

    /// `location` as a URL that may be fetched for `url`'s resource: https (http to loopback) and
    /// on `url`'s origin.
    package static func checkedLocation(_ location: String, for url: HTTPURL) throws(LatchkeyError) -> HTTPURL {
        guard let target = HTTPURL(string: location), target.fragment == nil else {
            throw .resourceMetadata(.unusableURL(location))
        }
        guard target.origin == url.origin else {
            throw .resourceMetadata(.otherOrigin(metadataURL: target.withoutQueryAndFragment, resourceOrigin: url.origin))
        }
        return target
    }

    /// The metadata for a request to `url` that was answered `response`: the challenge's
    /// `resource_metadata` when it has one, else the well-known location's when the answer was a
    /// 401; nil when neither leads anywhere.
    package static func metadata(after response: HTTPResponse, for url: HTTPURL, transport: any HTTPTransport)
        async throws(LatchkeyError) -> ProtectedResourceMetadata?
    {
        let challenge = ResourceChallenge(wwwAuthenticate: response.header("WWW-Authenticate"))
        if let location = challenge?.resourceMetadata {
            return try await challengedMetadata(location, for: url, transport: transport)
        }
        guard response.status == 401 else { return nil }
        return try await wellKnownMetadata(for: url, transport: transport)
    }

    /// The issuer identifier `named` stands for, as the issuer's own metadata spells it: `named`
    /// when its discovery document says exactly that, else its other spelling (one trailing `/`
    /// more or less, `IssuerName.otherSpelling`) when that is what the document says; anything
    /// else is `issuerMismatch`. The caller then signs in at the result, discovered exactly again.
    package static func issuer(named: String, transport: any HTTPTransport, time: any TimeSource = SystemTimeSource())
        async throws(LatchkeyError) -> String
    {
        do {
            _ = try await ProviderDiscovery.discover(issuer: named, transport: transport, time: time)
            return named
        } catch {
            guard case .issuerMismatch(_, let got) = error, got == IssuerName.otherSpelling(named) else { throw error }
            _ = try await ProviderDiscovery.discover(issuer: got, transport: transport, time: time)
            return got
        }
    }

    private static func get(_ url: HTTPURL, transport: any HTTPTransport) async throws(LatchkeyError) -> HTTPResponse {
        try await EndpointExchange(transport: transport, timeout: timeout).getJSON(url, maxRedirects: 0)
    }

    private static func read(_ response: HTTPResponse, from url: HTTPURL) throws(LatchkeyError) -> ProtectedResourceMetadata {
        let name = url.withoutQueryAndFragment
        guard response.body.count <= maxDocumentBytes else { throw .resourceMetadata(.tooLarge(url: name, limit: maxDocumentBytes)) }
        guard let object = try? JSONParser().parseObject(response.body) else { throw .resourceMetadata(.notJSON(url: name)) }
        do { return try ProtectedResourceMetadata(json: object) } catch { throw .resourceMetadata(.document(url: name, error)) }
    }
}
