import LatchkeyHTTP
import LatchkeyJOSE

/// The device authorization response (RFC 8628 §3.2), tolerant of the provider quirks in providers.md.
public struct DeviceAuthorizationResponse: Sendable, Equatable {
    /// The device code, polled with. Secret-ish: never logged.
    public var deviceCode: String
    /// The code the user types.
    public var userCode: String
    /// Where the user goes (Google and old OpenAM call it `verification_url`).
    public var verificationURI: String
    /// The URI with the code embedded, for the QR code (Entra never sends it).
    public var verificationURIComplete: String?
    /// Device-code lifetime in seconds (1800 when the server did not say).
    public var expiresIn: Int64
    /// Minimum seconds between polls (5 when missing, 0 or unparsable).
    public var interval: Int64
    /// Entra's human sentence (`message`), when present.
    public var message: String?

    /// Default poll interval (RFC 8628 §3.2).
    public static let defaultInterval: Int64 = 5
    /// The longest poll interval honoured; a larger server value is clamped to it.
    public static let maxInterval: Int64 = 3600
    /// The longest device-code lifetime honoured (a day); a larger server value is clamped to it.
    public static let maxExpiresIn: Int64 = 86_400
    /// Assumed lifetime when `expires_in` is missing.
    public static let defaultExpiresIn: Int64 = 1800
    /// The longest `user_code` accepted, in characters. RFC 8628 §6.1 asks for a code short enough
    /// to type (its examples have 8); 64 leaves room for any provider's grouping while keeping a
    /// screen or a kiosk line from being filled with server text.
    public static let maxUserCodeLength = 64

    /// Makes a value.
    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String? = nil,
        expiresIn: Int64 = DeviceAuthorizationResponse.defaultExpiresIn,
        interval: Int64 = DeviceAuthorizationResponse.defaultInterval, message: String? = nil
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
        self.message = message
    }

    /// Parses the endpoint's answer, by Content-Type (GitHub may answer form-encoded).
    public static func parse(_ response: HTTPResponse) throws(LatchkeyError) -> DeviceAuthorizationResponse {
        let object = ResponseBody.object(response)
        if let object, let code = object.string("error"), !code.isEmpty {
            throw DeviceErrorMapping.error(
                for: .server(
                    code: code, description: object.string("error_description"),
                    status: response.status), endpoint: .deviceAuthorization)
        }
        guard (200..<300).contains(response.status) else {
            throw .oauth(.unexpectedStatus(response.status), endpoint: .deviceAuthorization)
        }
        guard let object else { throw .protocolViolation("device authorization response is not a JSON object") }
        guard let deviceCode = object.string("device_code"), !deviceCode.isEmpty else {
            throw .protocolViolation("device authorization response has no device_code")
        }
        guard let userCode = object.string("user_code"), !userCode.isEmpty else {
            throw .protocolViolation("device authorization response has no user_code")
        }
        // The code is shown to a person on terminals, in JSON events and on a kiosk screen.
        guard isTypableUserCode(userCode) else {
            throw .protocolViolation(
                "device authorization response has a user_code that is not 1 to \(maxUserCodeLength) printable ASCII characters")
        }
        guard let uri = object.string("verification_uri") ?? object.string("verification_url"), !uri.isEmpty else {
            throw .protocolViolation("device authorization response has no verification_uri")
        }
        let complete = (object.string("verification_uri_complete") ?? object.string("verification_url_complete"))
            .flatMap { $0.isEmpty ? nil : $0 }
        // The person is sent to these addresses, and the QR code encodes them: a server must not
        // point them at javascript:, a plain-http host or anything else that is not a web origin.
        try requireWebAddress(uri, name: "verification_uri")
        if let complete { try requireWebAddress(complete, name: "verification_uri_complete") }
        var expiresIn = object.lenientInt("expires_in") ?? defaultExpiresIn
        if expiresIn <= 0 { expiresIn = defaultExpiresIn }
        expiresIn = min(expiresIn, maxExpiresIn)
        var interval = object.lenientInt("interval") ?? defaultInterval
        if interval <= 0 { interval = defaultInterval }
        // A server asking for more than an hour between polls is broken; the deadline still ends the flow.
        interval = min(interval, maxInterval)
        return DeviceAuthorizationResponse(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
            verificationURIComplete: complete,
            expiresIn: expiresIn, interval: interval, message: object.string("message"))
    }

    /// RFC 8628 §6.1 asks for a code a person can read and type: printable ASCII (U+0020–U+007E),
    /// no space at either end, 1 to `maxUserCodeLength` characters. Nothing else is shown.
    static func isTypableUserCode(_ code: String) -> Bool {
        let bytes = code.utf8
        guard !bytes.isEmpty, bytes.count <= maxUserCodeLength, bytes.first != 0x20, bytes.last != 0x20 else { return false }
        return bytes.allSatisfy(CharacterClass.isPrintable)
    }

    /// Throws unless `text` is an `HTTPURL`: https, or http to a loopback host, printable RFC 3986
    /// characters only, so no ESC reaches the terminal or the QR code (exit 7).
    static func requireWebAddress(_ text: String, name: String) throws(LatchkeyError) {
        guard HTTPURL(string: text) != nil else {
            throw .protocolViolation("the \(name) \(text) is not an https address (http only for loopback)")
        }
    }
}
