import LatchkeyJOSE

/// What discovery found: the metadata latchkey acts on, and the provider's whole document.
/// `ProviderMetadata` keeps only the members a sign-in or refresh uses (it is stored in the token
/// file); the document keeps the rest (`end_session_endpoint`, `response_types_supported`, …)
/// for callers that show the provider's metadata, such as the CLI's `discover`.
package struct DiscoveredProvider: Sendable, Equatable {
    /// The validated metadata (issuer matched, endpoints https or loopback http), overrides applied.
    package var metadata: ProviderMetadata
    /// The provider's JSON object exactly as it was sent, members in its order; empty when
    /// overrides alone made the metadata (no document was found).
    package var document: JSONObject

    /// Pairs the validated metadata with the document it came from.
    package init(metadata: ProviderMetadata, document: JSONObject) {
        self.metadata = metadata
        self.document = document
    }

    /// What the provider sent, as validated: every member of `document` in its order, with the
    /// members `ProviderMetadata` reads replaced by their validated values. One of those that did
    /// not validate (a member of the wrong type) is left out; a member set only by an override is
    /// appended.
    package var validatedDocument: JSONObject {
        let validated = metadata.json
        var result = JSONObject()
        for (key, value) in document {
            if ProviderMetadata.memberNames.contains(key) {
                result[key] = validated[key]
            } else {
                result[key] = value
            }
        }
        for (key, value) in validated where result[key] == nil { result[key] = value }
        return result
    }
}
