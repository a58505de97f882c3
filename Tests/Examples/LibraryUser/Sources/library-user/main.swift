import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

// library-user ISSUER_URL [CLIENT_ID]: signs in with the device flow, then calls ISSUER_URL/resource.
let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3, let issuer = HTTPURL(string: arguments[1]),
    let resource = HTTPURL(string: issuer.absoluteString + "/resource")
else {
    fail("usage: library-user ISSUER_URL [CLIENT_ID]", status: 2)
}
let clientID = arguments.count == 3 ? arguments[2] : "library-user"

do {
    let transports = tracedTransports(HTTPClient(configuration: .fromEnvironment(processEnvironment())))
    let session = Session(
        configuration: ClientConfiguration(issuer: issuer.absoluteString, clientID: clientID),
        store: VaultTokenStore(vault: MemoryVault(), profile: "kiosk"),
        transports: transports, random: try SecureRandom(),
        clientAuthentication: PublicClientWithBuild(clientID: clientID, build: "library-user/1"))
    try await signIn(session)
    try await showToken(session)
    let response = try await callResource(resource, source: session, over: transports.transport(for: .resource))
    print("resource: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
    exit(response.status == 200 ? 0 : 1)
} catch {
    fail("library-user: \(error)", status: 1)
}

/// Writes `message` to standard error and exits.
func fail(_ message: String, status: Int32) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}
