import LatchkeyHTTP

/// An extra authorization-request parameter that a provider wants and the protocol does not own
/// (Auth0's `audience`, `prompt`, `acr_values`, `ui_locales`), sent on the authorization (or
/// pushed), device authorization and CIBA requests.
public struct RequestParameter: Sendable, Equatable {
    /// The parameter name.
    public let name: String
    /// Its value.
    public let value: String

    /// Why a parameter cannot be sent.
    public enum Refusal: Sendable, Equatable {
        /// A name the protocol owns (`isProtocolOwned`): letting a setting replace `state`,
        /// `redirect_uri` or a PKCE challenge would undo what the flow guarantees.
        case protocolOwned
        /// The name is empty, or not printable ASCII without spaces, `=` and `&`.
        case unusableName
        /// The value holds a control character.
        case controlCharacterInValue
    }

    /// The parameter; throws `.configuration(.unusableParameter(name:refusal:))` saying why not.
    public init(name: String, value: String) throws(LatchkeyError) {
        if !Self.isUsableName(name) { throw .configuration(.unusableParameter(name: name, refusal: .unusableName)) }
        if Self.isProtocolOwned(name) { throw .configuration(.unusableParameter(name: name, refusal: .protocolOwned)) }
        if CharacterClass.containsASCIIControl(value) {
            throw .configuration(.unusableParameter(name: name, refusal: .controlCharacterInValue))
        }
        self.name = name
        self.value = value
    }

    /// The parameter when it can be sent, else nil (the reason dropped).
    package static func usable(name: String, value: String) -> RequestParameter? {
        try? RequestParameter(name: name, value: value)
    }

    /// Names set by the flows themselves (RFC 6749, 7636, 8628, 8707, 9101, 9126, 9449, 7521,
    /// OpenID Connect Core and CIBA) or that carry client credentials.
    public static let protocolOwnedNames: [String] = [
        "client_id", "client_secret", "scope", "state", "nonce", "redirect_uri", "response_type", "response_mode",
        "code_challenge", "code_challenge_method", "code_verifier", "code", "request", "request_uri", "dpop_jkt",
        "login_hint", "login_hint_token", "id_token_hint", "binding_message", "user_code", "grant_type",
        "resource", "refresh_token", "device_code", "auth_req_id", "client_assertion", "client_assertion_type"
    ]

    /// True for names the protocol owns, including every `client_assertion*` and `code_challenge*`
    /// variant.
    public static func isProtocolOwned(_ name: String) -> Bool {
        // Compared without case: a server that folds names must not see a second `State`.
        let folded = name.lowercased()
        return protocolOwnedNames.contains(folded) || folded.hasPrefix("client_assertion") || folded.hasPrefix("code_challenge")
    }

    static func isUsableName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { CharacterClass.isVisible($0) && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "&") }
    }

    /// The pairs for `parameters`, in order.
    public static func pairs(_ parameters: [RequestParameter]) -> [(String, String)] {
        parameters.map { ($0.name, $0.value) }
    }
}
