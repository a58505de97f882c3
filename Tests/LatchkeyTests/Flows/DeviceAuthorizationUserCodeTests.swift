import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// RFC 8628 §6.1: a user code is short and typed by a person. The code is shown on terminals, in
/// JSON events and on the kiosk screen, so a code that is not printable ASCII, or is longer than a
/// person could type, is a malformed answer (exit 7), never shown.
@Suite struct DeviceAuthorizationUserCodeTests {
    func parse(userCode: String) throws(LatchkeyError) -> DeviceAuthorizationResponse {
        var object = JSONObject()
        object["device_code"] = .string("d")
        object["user_code"] = .string(userCode)
        object["verification_uri"] = .string("https://idp.example/device")
        return try DeviceAuthorizationResponse.parse(Reply.json(200, JSONValue.object(object).jsonText))
    }

    @Test(arguments: [
        "WDJB-MJHT", "GQVQ-JKEC", "FQK5HW3UF", "123456", "U", "ab cd", "A~!#$%&'()*+,./:;<=>?@[]^_`{|}",
        String(repeating: "A", count: DeviceAuthorizationResponse.maxUserCodeLength)
    ])
    func printableShortCodesAreAccepted(code: String) throws {
        #expect(try parse(userCode: code).userCode == code)
    }

    @Test(arguments: [
        "WDJB\u{1B}[8m-HIDDEN", "WDJB\u{9B}31m", "WDJB\u{202E}TJM", "WDJB\u{2066}X", "A\u{7F}B", "A\u{85}B",
        "A\tB", "A\nB", "A\rB", "A\u{0}B", "A\u{2028}B", "ÄBCD", "日本", "\u{A0}ABC", " ABCD", "ABCD ",
        String(repeating: "A", count: DeviceAuthorizationResponse.maxUserCodeLength + 1)
    ])
    func otherCodesAreProtocolViolations(code: String) {
        do {
            _ = try parse(userCode: code)
            Issue.record("accepted user_code \(code.debugDescription)")
        } catch {
            #expect(error.category == .protocolViolation, "\(error)")
            #expect(
                !"\(error)".unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                "the refusal repeats the code: \(error)")
        }
    }
}
