/// How a stored session renews its access token.
package enum SessionGrant: String, Sendable, Equatable, CaseIterable {
    /// A person authorized it (device, code, CIBA): renewed with the refresh token, if any.
    case authorization
    /// The client acting as itself (RFC 6749 §4.4): renewed by running the grant again, since
    /// no refresh token is issued.
    case clientCredentials = "client_credentials"
    /// A JWT bearer assertion (RFC 7523 §2.1): renewed by posting the assertion file's current
    /// content again.
    case jwtBearer = "jwt_bearer"
}
