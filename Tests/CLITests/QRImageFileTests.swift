import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

@testable import latchkey

/// `login --qr-file`: the image decodes (zbarimg, as a phone's camera would) at the URL lengths the
/// terminal QR code is tested with, is replaced by a new code, and is removed only when written.
@Suite("QR image file for kiosks")
struct QRImageFileTests {
    /// The terminal-QR tests' URLs (LatchkeyQRTests `url(length:)`): the same lengths, the same shape.
    static func url(length: Int) -> String {
        var s = "https://idp.example.com/device?user_code="
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.~abcdefghijkmnopqrstuvwxyz")
        var i = length
        while s.utf8.count < length {
            s.append(alphabet[(i * 7 + s.utf8.count * 13) % alphabet.count])
            i += 1
        }
        return String(s.utf8.prefix(length).map { Character(UnicodeScalar($0)) })
    }

    @Test(arguments: [20, 77, 160, 300], ["png", "svg"])
    func imageDecodesToTheURL(length: Int, format: String) throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let text = Self.url(length: length)
        let file = try QRImageFile(path: dir.path + "/code." + format)
        try file.write(text)
        var info = stat()
        #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let result = try QRImageDecoder.zbarimg(file: file.path)
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stdoutText == text + "\n")
    }

    @Test func aNewCodeReplacesTheImageAndRemoveDeletesIt() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try QRImageFile(path: dir.path + "/kiosk.PNG")
        try file.write("https://idp.example/device?user_code=AAAA-BBBB")
        try file.write("https://idp.example/device?user_code=CCCC-DDDD")
        #expect(try QRImageDecoder.zbarimg(file: file.path).stdoutText == "https://idp.example/device?user_code=CCCC-DDDD\n")
        let listing = try ProcessRunner.run("/bin/ls", ["-A", dir.path])
        #expect(listing.stdoutText == "kiosk.PNG\n", "no temporary file left: \(listing.stdoutText)")
        file.remove()
        #expect(access(file.path, F_OK) != 0)
    }

    @Test func aFileNeverWrittenIsLeftAlone() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(QRImageDecoder.write(Array("someone's picture".utf8), to: dir.path + "/mine.svg"))
        try QRImageFile(path: dir.path + "/mine.svg").remove()
        #expect(access(dir.path + "/mine.svg", F_OK) == 0)
    }

    /// A folder that is missing or not a folder is refused when the file is named, so the login
    /// never starts with a kiosk screen it cannot fill.
    @Test func theFolderMustExistAndBeAFolder() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(FileText.write("x", to: dir.path + "/plain"))
        for (path, message) in [
            (dir.path + "/missing/code.svg", "--qr-file: the folder \(dir.path)/missing does not exist"),
            (dir.path + "/plain/code.png", "--qr-file: \(dir.path)/plain is not a folder")
        ] {
            do {
                _ = try QRImageFile(path: path)
                Issue.record("\(path) was accepted")
            } catch let error as UsageError {
                #expect(error.message == message)
            }
        }
        _ = try QRImageFile(path: dir.path + "/code.svg")
    }

    @Test func onlySVGAndPNG() {
        for bad in ["code.jpg", "code", "svg", "/tmp/.png", "dir/"] {
            #expect(throws: UsageError.self, "\(bad)") { try QRImageFile(path: bad) }
        }
    }
}

/// The `verification` and `backchannel` JSON events: the contract's members, the new ones last.
@Suite("login JSON events for cross-device safety and CIBA")
struct CrossDeviceEventTests {
    static let authorization = DeviceAuthorizationResponse(
        deviceCode: "dc", userCode: "WDJB-MJHT",
        verificationURI: "https://device.example.net/activate", interval: 5)

    @Test func verificationEventEndsWithTheIssuerAndTheSiteCheck() throws {
        let at = Timestamp(timeIntervalSince1970: 1_767_268_800)
        let other = LoginPresenter.jsonLine(.verification(Self.authorization, expiresAt: at), issuer: "https://id.example.com")
        #expect(
            other.jsonText
                == #"{"event":"verification","verification_uri":"https://device.example.net/activate","verification_uri_complete":null,"user_code":"WDJB-MJHT","expires_at":"2026-01-01T12:00:00Z","interval":5,"issuer":"https://id.example.com","verification_host_matches_issuer":false}"#
        )
        let same = LoginPresenter.jsonLine(.verification(Self.authorization, expiresAt: at), issuer: "https://login.example.net/x")
        #expect(same["verification_host_matches_issuer"] == .bool(true))
    }

    @Test func backchannelEventHasTheContractsShape() throws {
        let request = try BackchannelAuthenticationRequest(loginHint: #"{"username":"alice"}"#)
        let response = BackchannelAuthenticationResponse(authRequestID: "secret-id", expiresIn: 120, interval: 5)
        let line = LoginPresenter.jsonLine(.backchannel(request, response, expiresAt: Timestamp(timeIntervalSince1970: 1_767_268_800)))
        #expect(
            line.jsonText
                == #"{"event":"backchannel","login_hint":"{\"username\":\"alice\"}","binding_message":null,"expires_at":"2026-01-01T12:00:00Z","interval":5}"#
        )
        #expect(!line.jsonText.contains("secret-id"), "the auth_req_id is never printed")
    }
}
