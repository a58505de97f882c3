import Latchkey

/// Signs in with the device flow (RFC 8628): says where to go and which code to enter, then waits
/// until the person has approved (the session polls at the server's interval).
func signIn(_ session: Session) async throws {
    let saved = try await session.signIn(
        flow: .device,
        events: { event in
            switch event {
            case .verification(let authorization, let expiresAt):
                print("Open \(authorization.verificationURI) and enter \(authorization.userCode) before \(expiresAt)")
            case .authorized(_, let subject, _, _, let idTokenVerified, _):
                print("Signed in as \(subject ?? "?") (ID token verified: \(idTokenVerified))")
            default:
                break
            }
        })
    print("Saved profile \(saved.profile) for \(saved.issuer)")
}
