// An example of a Swift program that already uses Foundation and signs a device in with the
// Latchkey library: `URL` in, `Date` out, through LatchkeyFoundationCompat. Built in CI.
//
//   swift run latchkey-example-foundation https://idp.example my-device-client
import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyFoundationCompat
import LatchkeyHTTP

let arguments = CommandLine.arguments
guard arguments.count == 3, let issuer = URL(string: arguments[1]) else {
    print("usage: latchkey-example-foundation ISSUER_URL CLIENT_ID")
    exit(2)
}

let configuration = try ClientConfiguration(issuer: issuer, clientID: arguments[2])
let stateDirectory = FileManagerFreeTemporaryDirectory.make()
let store = EncryptedFileTokenStore(stateDirectory: stateDirectory, profile: "example")
let transport = HTTPClient(configuration: .fromEnvironment(ProcessInfo.processInfo.environment))
let session = Session(
    configuration: configuration, store: store, transport: transport,
    time: FoundationTimeSource(), random: try SecureRandom())

let signedIn = try await session.signIn(
    flow: .device,
    events: { event in
        if case let .verification(authorization, expiresAt) = event {
            print("Open \(authorization.verificationURI) and enter \(authorization.userCode) before \(Date(expiresAt))")
        }
    })
let token = try await session.validToken()
print("Signed in as \(signedIn.subject ?? "?"); the access token expires \(token.expirationDate.map { "\($0)" } ?? "never")")

/// A private temporary folder for the example's token file (mkdtemp; nothing else needed).
enum FileManagerFreeTemporaryDirectory {
    static func make() -> String {
        var template = Array("/tmp/latchkey-example.XXXXXX".utf8CString)
        guard let path = mkdtemp(&template) else { fatalError("mkdtemp failed") }
        return String(cString: path)
    }
}
