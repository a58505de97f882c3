import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// `private_key_jwt` (RFC 7523 §2.2 and OpenID Connect Core §9, as profiled by the successor draft
/// of RFC 7523): on every request where the client authenticates, a fresh JWT signed with the
/// client's own key, sent as `client_assertion` with its type. `client_id` goes in the body too:
/// RFC 7521 §4.2 allows it, and Glewlwyd needs it.
///
/// The key is read from `key` at each use and released (zeroed) after the one signature, so it
/// is never held by a long-lived value and never reaches a log.
public struct PrivateKeyJWTAuthentication: RequestAuthenticator {
    /// RFC 7523 §2.2.
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// `exp - iat`, in seconds: the successor draft wants a short life (at most 60 s here).
    public static let lifetime: Int64 = 60

    /// The client: `iss` and `sub` of every assertion.
    public let clientID: String
    /// Algorithm, `kid`, `typ` and audience.
    public let settings: ClientAssertionSettings
    /// Where the private key is read from.
    public let key: any ClientKeySource
    /// The issuer identifier, the default `aud`: the configured one until bound to metadata.
    public private(set) var issuer: String
    /// `token_endpoint_auth_signing_alg_values_supported` of the bound metadata, when advertised.
    public private(set) var advertisedAlgorithms: [String]?
    /// RFC 8705 §5 alias URL → the ordinary endpoint URL of the same role, from the bound metadata.
    public private(set) var ordinaryEndpoints: [String: String] = [:]

    /// Makes the authenticator for `clientID` at `issuer`.
    public init(
        clientID: String, issuer: String, key: any ClientKeySource,
        settings: ClientAssertionSettings = ClientAssertionSettings()
    ) {
        self.clientID = clientID
        self.issuer = issuer
        self.key = key
        self.settings = settings
    }

    /// Takes the issuer identifier and the advertised algorithms from `metadata`.
    public func bound(to metadata: ProviderMetadata) -> any RequestAuthenticator {
        var copy = self
        copy.issuer = metadata.issuer
        copy.advertisedAlgorithms = metadata.tokenEndpointAuthSigningAlgValuesSupported
        copy.ordinaryEndpoints = metadata.ordinaryEndpointsByAlias
        return copy
    }

    /// A refused assertion: `invalid_client`, any 401 (RFC 6749 §5.2; Glewlwyd answers `401
    /// unauthorized_client` at /device_authorization), or a 403 without an error code (Glewlwyd's
    /// empty 403 at /token). It names the audience used, so a program can suggest the other one.
    public func refusal(of response: HTTPResponse, endpoint: EndpointRole) -> ClientAuthenticationRefusal? {
        let error: OAuthError?
        if case .error(let e) = TokenResponse.parse(response) { error = e } else { error = nil }
        let refused = error?.code == "invalid_client" || response.status == 401 || (response.status == 403 && error?.code == nil)
        guard refused else { return nil }
        return ClientAuthenticationRefusal(
            method: .privateKeyJWT, endpoint: endpoint, status: response.status,
            error: error?.code == nil ? nil : error, assertionAudience: settings.audience)
    }

    /// Appends `client_id` (unless the form names the client already, as a pushed authorization
    /// request does), `client_assertion_type` and a new `client_assertion`.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        let assertion = try self.assertion(audience: audience(for: request.url), at: context.now, random: context.random)
        request.appendClientID(clientID)
        request.form.append(("client_assertion_type", Self.assertionType))
        request.form.append(("client_assertion", assertion))
    }

    /// The `aud` for a request to `url`: the issuer, or the endpoint's URL. For a request to an
    /// `mtls_endpoint_aliases` URL that is the ordinary endpoint the metadata names for the same
    /// role (`token_endpoint` for the token alias): the alias is only where the certificate is
    /// read, the endpoint OpenID Connect Core §9 means is the metadata's (and Glewlwyd refuses the alias).
    public func audience(for url: HTTPURL) -> String {
        switch settings.audience {
        case .issuer: return issuer
        case .endpoint: return ordinaryEndpoints[url.absoluteString] ?? url.absoluteString
        }
    }

    /// A signed assertion: header `alg`, `typ` and `kid` (when set); claims `iss` = `sub` =
    /// client_id, `aud`, `jti` (128 random bits), `iat` (now) and `exp` (`lifetime` later).
    /// Refuses an algorithm that does not fit the key, or that the provider does not advertise,
    /// before anything is signed.
    public func assertion(audience: String, at now: Timestamp, random: some RandomSource) throws(LatchkeyError) -> String {
        let signer = try self.signer(random: random)
        let iat = now.epochSeconds
        var claims = JSONObject()
        claims["iss"] = .string(clientID)
        claims["sub"] = .string(clientID)
        claims["aud"] = .string(audience)
        claims["jti"] = .string(Base64URL.encode(random.bytes(16)))
        claims["iat"] = .integer(iat)
        claims["exp"] = .integer(iat + Self.lifetime)
        let reference: JWSSigner.KeyReference = settings.keyID.map { .keyID($0) } ?? .none
        do { return try signer.sign(claims: claims, type: settings.type.rawValue, keyReference: reference) } catch {
            throw .clientKey(ClientKeyError.signingFailed(error.description))
        }
    }

    /// Reads and parses the key, and fixes the algorithm: the configured one (which must fit the
    /// key) or the key's natural one, either of which must be advertised when the provider lists any.
    func signer(random: some RandomSource) throws(LatchkeyError) -> JWSSigner {
        let pem = try key.privateKeyPEM()
        let parsed: SigningKey
        do { parsed = try SigningKey(pem: pem, random: random) } catch {
            if case .privateKeyRefused(let refusal) = error {
                throw .clientKey(ClientKeyError.refused(path: (key as? ClientKeyFile)?.path, refusal))
            }
            throw .clientKey(ClientKeyError.signingFailed(error.description))
        }
        let signer: JWSSigner
        do { signer = try JWSSigner(key: parsed, algorithm: settings.algorithm) } catch {
            if case .algorithmDoesNotFitKey(let algorithm, let keyKind) = error {
                throw .configuration(.clientKeyDoesNotFitAlgorithm(algorithm: algorithm, key: keyKind))
            }
            throw .clientKey(ClientKeyError.signingFailed(error.description))
        }
        if let advertised = advertisedAlgorithms, !advertised.isEmpty, !advertised.contains(signer.algorithm.rawValue) {
            throw .configuration(.clientAssertionAlgorithmNotAdvertised(algorithm: signer.algorithm.rawValue, advertised: advertised))
        }
        return signer
    }
}
