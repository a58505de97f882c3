import LatchkeyJOSE

/// RFC 8705 §5 `mtls_endpoint_aliases`: the endpoints a client presenting a certificate must use in
/// place of the ordinary ones (a provider may serve mutual TLS on another host or path). Only the
/// endpoints where the client authenticates itself are modelled; others are ignored.
package struct MTLSEndpointAliases: Sendable, Equatable {
    /// Alias of `token_endpoint`.
    package var tokenEndpoint: String?
    /// Alias of `revocation_endpoint`.
    package var revocationEndpoint: String?
    /// Alias of `device_authorization_endpoint`.
    package var deviceAuthorizationEndpoint: String?
    /// Alias of `pushed_authorization_request_endpoint` (RFC 9126).
    package var pushedAuthorizationRequestEndpoint: String?
    /// Alias of `backchannel_authentication_endpoint` (OpenID CIBA).
    package var backchannelAuthenticationEndpoint: String?

    /// Aliases; nil leaves an endpoint as it is.
    package init(
        tokenEndpoint: String? = nil, revocationEndpoint: String? = nil, deviceAuthorizationEndpoint: String? = nil,
        pushedAuthorizationRequestEndpoint: String? = nil, backchannelAuthenticationEndpoint: String? = nil
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.backchannelAuthenticationEndpoint = backchannelAuthenticationEndpoint
    }

    /// The member name of the metadata.
    package static let memberName = "mtls_endpoint_aliases"

    /// The aliases, by their metadata names, in the order they are written.
    static let members: [String] = [
        "token_endpoint",
        "revocation_endpoint",
        "device_authorization_endpoint",
        "pushed_authorization_request_endpoint",
        "backchannel_authentication_endpoint"
    ]
    /// The member named `name` of `members`.
    func member(_ name: String) -> String? {
        switch name {
        case "token_endpoint": return tokenEndpoint
        case "revocation_endpoint": return revocationEndpoint
        case "device_authorization_endpoint": return deviceAuthorizationEndpoint
        case "pushed_authorization_request_endpoint": return pushedAuthorizationRequestEndpoint
        case "backchannel_authentication_endpoint": return backchannelAuthenticationEndpoint
        default: return nil
        }
    }
    /// Sets the member named `name` of `members`.
    mutating func setMember(_ name: String, _ value: String?) {
        switch name {
        case "token_endpoint": tokenEndpoint = value
        case "revocation_endpoint": revocationEndpoint = value
        case "device_authorization_endpoint": deviceAuthorizationEndpoint = value
        case "pushed_authorization_request_endpoint": pushedAuthorizationRequestEndpoint = value
        case "backchannel_authentication_endpoint": backchannelAuthenticationEndpoint = value
        default: break
        }
    }

    /// Reads the object strictly, even from a provider: a client that presents its certificate on
    /// the wrong endpoint fails in confusing ways, so an alias of the wrong type is an error, not
    /// an absence. Unknown members (`introspection_endpoint`, `userinfo_endpoint`, …) are ignored.
    package init(json: JSONValue) throws(DocumentError) {
        let name = Self.memberName
        guard let object = json.objectValue else { throw .wrongType(member: name, expected: "an object") }
        let m = JSONMembers(object, path: name)
        self.init()
        for name in Self.members { setMember(name, try m.string(name)) }
    }

    /// The aliases as JSON, unset ones left out.
    package var json: JSONObject {
        var o = JSONObject()
        for name in Self.members { o.setIfPresent(name, member(name)) }
        return o
    }

    /// (member name, URL) of every alias that is set.
    var present: [(String, String)] {
        Self.members.compactMap { name in member(name).map { (name, $0) } }
    }
}
