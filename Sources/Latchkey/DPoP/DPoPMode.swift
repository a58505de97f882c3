/// When a session binds its tokens to a key with DPoP (RFC 9449).
public enum DPoPMode: String, Sendable, CaseIterable {
    /// DPoP when the metadata lists ES256 in `dpop_signing_alg_values_supported`; a `Bearer`
    /// answer is accepted (the session is then not bound).
    case auto
    /// Always send proofs; a `Bearer` answer is a protocol violation.
    case always
    /// Never send proofs.
    case never

    /// True when a sign-in against `metadata` makes a key and sends proofs.
    public func uses(_ metadata: ProviderMetadata) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto: return metadata.dpopSigningAlgValuesSupported?.contains("ES256") ?? false
        }
    }
}
