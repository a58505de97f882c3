import Latchkey

/// Client authentication of our own: a public client (`client_id` in the body, RFC 6749 §2.3)
/// that also names its build in a header, on the endpoints where the client identifies itself.
struct PublicClientWithBuild: RequestAuthenticator {
    let clientID: String
    let build: String

    func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        request.form.append(("client_id", clientID))
        request.setHeader("X-Client-Build", build)
    }
}
