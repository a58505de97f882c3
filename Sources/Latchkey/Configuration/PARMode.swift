/// When the code flow pushes its authorization request to the provider first (RFC 9126).
public enum PARMode: String, Sendable, CaseIterable {
    /// Push when the metadata has `pushed_authorization_request_endpoint`.
    case auto
    /// Always push; metadata without the endpoint is a configuration problem.
    case always
    /// Never push; refused before anything is sent when the provider says
    /// `require_pushed_authorization_requests`.
    case never

    /// True when a code-flow sign-in against `metadata` pushes its request. The provider's
    /// `require_pushed_authorization_requests` wins over `auto` and makes `never` an error, found
    /// before any request is made rather than as the provider's refusal in the person's browser.
    public func uses(_ metadata: ProviderMetadata) throws(LatchkeyError) -> Bool {
        let advertised = metadata.pushedAuthorizationRequestEndpoint != nil
        let required = metadata.requirePushedAuthorizationRequests == true
        switch self {
        case .never:
            if required { throw .configuration(.pushedAuthorizationRequired) }
            return false
        case .always:
            guard advertised else { throw .configuration(.missingEndpoint("pushed_authorization_request_endpoint")) }
            return true
        case .auto:
            if required && !advertised { throw .configuration(.missingEndpoint("pushed_authorization_request_endpoint")) }
            return advertised
        }
    }
}
