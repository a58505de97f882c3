import LatchkeyJOSE

/// RFC 8705 §5 `mtls_endpoint_aliases`: the endpoints a client presenting a certificate must use in
/// place of the ordinary ones (a provider may serve mutual TLS on another host or path). Only the
/// endpoints where the client authenticates itself are modelled; others are ignored.
public struct MTLSEndpointAliases: Sendable, Equatable {
    /// Alias of `token_endpoint`.
    public var tokenEndpoint: String?
    /// Alias of `revocation_endpoint`.
    public var revocationEndpoint: String?
    /// Alias of `device_authorization_endpoint`.
    public var deviceAuthorizationEndpoint: String?
    /// Alias of `pushed_authorization_request_endpoint` (RFC 9126).
    public var pushedAuthorizationRequestEndpoint: String?
    /// Alias of `backchannel_authentication_endpoint` (OpenID CIBA).
    public var backchannelAuthenticationEndpoint: String?

    /// Aliases; nil leaves an endpoint as it is.
    public init(tokenEndpoint: String? = nil, revocationEndpoint: String? = nil, deviceAuthorizationEndpoint: String? = nil,
                pushedAuthorizationRequestEndpoint: String? = nil, backchannelAuthenticationEndpoint: String? = nil) {
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.backchannelAuthenticationEndpoint = backchannelAuthenticationEndpoint
    }

    /// The member name of the metadata.
    public static let memberName = "mtls_endpoint_aliases"

    static let members: [DocumentMember<MTLSEndpointAliases, String>] =
        [.init("token_endpoint", { $0.tokenEndpoint }, { $0.tokenEndpoint = $1 }),
         .init("revocation_endpoint", { $0.revocationEndpoint }, { $0.revocationEndpoint = $1 }),
         .init("device_authorization_endpoint", { $0.deviceAuthorizationEndpoint }, { $0.deviceAuthorizationEndpoint = $1 }),
         .init("pushed_authorization_request_endpoint", { $0.pushedAuthorizationRequestEndpoint }, { $0.pushedAuthorizationRequestEndpoint = $1 }),
         .init("backchannel_authentication_endpoint", { $0.backchannelAuthenticationEndpoint }, { $0.backchannelAuthenticationEndpoint = $1 })]

    /// Reads the object strictly, even from a provider: a client that presents its certificate on
    /// the wrong endpoint fails in confusing ways, so an alias of the wrong type is an error, not
    /// an absence. Unknown members (`introspection_endpoint`, `userinfo_endpoint`, …) are ignored.
    public init(json: JSONValue) throws(DocumentError) {
        let name = Self.memberName
        guard let object = json.objectValue else { throw .wrongType(member: name, expected: "an object") }
        let m = JSONMembers(object, path: name)
        self.init()
        for member in Self.members { member.set(&self, try m.string(member.name)) }
    }

    /// The aliases as JSON, unset ones left out.
    public var json: JSONObject {
        var o = JSONObject()
        for member in Self.members { o.setIfPresent(member.name, member.get(self)) }
        return o
    }

    /// (member name, URL) of every alias that is set.
    var present: [(String, String)] {
        Self.members.compactMap { member in member.get(self).map { (member.name, $0) } }
    }
}
