import LatchkeyHTTP

/// What a CIBA authentication request (OpenID CIBA Core §7.1) says besides `scope` and the client's
/// authentication: whom to ask, what both screens show, and for how long.
public struct BackchannelAuthenticationRequest: Sendable {
    /// Names the person to ask, in the provider's own format (Glewlwyd wants the JSON text
    /// `{"username":"alice"}`). Sent unchanged.
    public var loginHint: String
    /// A short text shown on this device and on the person's, so they can tell the request is the
    /// one in front of them (§7.1); nil sends none.
    public var bindingMessage: String?
    /// Seconds the request may stay open (`requested_expiry`); nil leaves it to the provider.
    public var requestedExpiry: Int64?
    /// Extra request parameters (e.g. `resource`, `acr_values`), sent after the ones above.
    public var additionalParameters: [(String, String)]

    /// The longest binding message accepted, in characters: short enough to read at a glance on a
    /// phone's notification (CIBA §7.1 asks for "relatively short" plain text).
    public static let maxBindingMessageLength = 64

    /// Makes a request, refusing an empty login hint, an unusable binding message or a
    /// `requestedExpiry` below 1 (`LatchkeyError.configuration`).
    public init(
        loginHint: String, bindingMessage: String? = nil, requestedExpiry: Int64? = nil,
        additionalParameters: [(String, String)] = []
    ) throws(LatchkeyError) {
        guard !loginHint.isEmpty else { throw .configuration(.missingLoginHint) }
        if let bindingMessage, let problem = Self.bindingMessageProblem(bindingMessage) { throw .configuration(problem) }
        if let requestedExpiry, requestedExpiry < 1 {
            throw .configuration(.invalidBackchannelRequest(reason: "requested_expiry must be at least 1 second"))
        }
        self.loginHint = loginHint
        self.bindingMessage = bindingMessage
        self.requestedExpiry = requestedExpiry
        self.additionalParameters = additionalParameters
    }

    /// Why `text` cannot be a binding message, or nil: it must be 1 to 64 characters with no
    /// control character (C0 including tab and newline, DEL, C1), since both screens show it as
    /// one line and a control character could rewrite what the person reads.
    public static func bindingMessageProblem(_ text: String) -> ConfigurationProblem? {
        if text.isEmpty { return .invalidBackchannelRequest(reason: "the binding message is empty") }
        if text.count > maxBindingMessageLength {
            return .invalidBackchannelRequest(
                reason: "the binding message has \(text.count) characters, at most \(maxBindingMessageLength) are allowed")
        }
        if CharacterClass.containsControl(text) {
            return .invalidBackchannelRequest(reason: "the binding message contains a control character")
        }
        return nil
    }

    /// The form parameters after `scope`, in a stable order.
    var form: [(String, String)] {
        var params = [("login_hint", loginHint)]
        if let bindingMessage { params.append(("binding_message", bindingMessage)) }
        if let requestedExpiry { params.append(("requested_expiry", String(requestedExpiry))) }
        return params + additionalParameters
    }
}
