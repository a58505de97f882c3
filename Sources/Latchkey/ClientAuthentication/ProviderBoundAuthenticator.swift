/// An authenticator that needs to know the provider it talks to: its issuer identifier and what
/// its metadata advertises (a `private_key_jwt` assertion's `aud` and algorithm). `TokenClient`
/// binds every such authenticator of its pipeline to its metadata, so sign-in, refresh and logout
/// each use the metadata they work with (discovered, or stored in the token file).
public protocol ProviderBoundAuthenticator: RequestAuthenticator {
    /// The same authenticator for the provider `metadata` describes.
    func bound(to metadata: ProviderMetadata) -> any RequestAuthenticator
}

extension ProviderPipeline {
    /// The same pipeline with each `ProviderBoundAuthenticator` bound to `metadata`.
    public func bound(to metadata: ProviderMetadata) -> ProviderPipeline {
        var copy = self
        copy.authenticators = authenticators.map { ($0 as? any ProviderBoundAuthenticator)?.bound(to: metadata) ?? $0 }
        return copy
    }
}
