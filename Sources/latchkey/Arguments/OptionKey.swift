/// An option as the catalog declares it and the commands read it. The raw value is the long
/// spelling, written only here (whole, so that building a spec on the `latchkey token` hot path
/// joins no strings): `CommandCatalog` declares each option by its key, and
/// `ParsedArguments` answers only to keys, so a misspelt option does not compile and a test checks
/// that every key is one some command (or the global list) declares.
enum OptionKey: String, CaseIterable, Sendable, CustomStringConvertible {
    // Global options.
    case profile = "--profile"
    case stateDir = "--state-dir"
    case caFile = "--ca-file"
    case json = "--json"
    case verbose = "--verbose"
    case quiet = "--quiet"
    case help = "--help"
    case version = "--version"

    // Secrets several commands read.
    case passphraseFile = "--passphrase-file"
    case clientSecretFile = "--client-secret-file"

    // login (some shared with fetch --sign-in, register and verify).
    case issuer = "--issuer"
    case clientID = "--client-id"
    case scope = "--scope"
    case flow = "--flow"
    case assertionFile = "--assertion-file"
    case redirectURI = "--redirect-uri"
    case pkce = "--pkce"
    case authMethod = "--auth-method"
    case clientCertFile = "--client-cert-file"
    case clientCertKeyFile = "--client-cert-key-file"
    case deviceAuthorizationEndpoint = "--device-authorization-endpoint"
    case tokenEndpoint = "--token-endpoint"
    case authorizationEndpoint = "--authorization-endpoint"
    case revocationEndpoint = "--revocation-endpoint"
    case jwksURI = "--jwks-uri"
    case credentialHost = "--credential-host"
    case credentialUsername = "--credential-username"
    case postLogoutRedirectURI = "--post-logout-redirect-uri"
    case dpop = "--dpop"
    case requireDPoPForOfflineAccess = "--require-dpop-for-offline-access"
    case par = "--par"
    case resource = "--resource"
    case resourceURL = "--resource-url"
    case acrValues = "--acr-values"
    case maxAge = "--max-age"
    case param = "--param"
    case keySource = "--key-source"
    case qr = "--qr"
    case noQR = "--no-qr"
    case timeout = "--timeout"
    case open = "--open"
    case loginHint = "--login-hint"
    case bindingMessage = "--binding-message"
    case qrFile = "--qr-file"
    case clientKeyFile = "--client-key-file"
    case clientKeyID = "--client-key-id"
    case clientAssertionAlg = "--client-assertion-alg"
    case clientAssertionTyp = "--client-assertion-typ"
    case clientAssertionAud = "--client-assertion-aud"
    case clientAssertionFile = "--client-assertion-file"

    // token, proof, status.
    case format = "--format"
    case method = "--method"
    case url = "--url"
    case minTTL = "--min-ttl"
    case forceRefresh = "--force-refresh"
    case allProfiles = "--all-profiles"

    // logout.
    case noRevoke = "--no-revoke"
    case endSession = "--end-session"
    case idTokenHint = "--id-token-hint"

    // verify.
    case jwks = "--jwks"
    case audience = "--audience"
    case alg = "--alg"
    case leeway = "--leeway"
    case at = "--at"
    case noTimeCheck = "--no-time-check"

    // fetch.
    case request = "--request"
    case header = "--header"
    case data = "--data"
    case include = "--include"
    case output = "--output"
    case exchangeAudience = "--exchange-audience"
    case exchangeResource = "--exchange-resource"
    case exchangeScope = "--exchange-scope"
    case signIn = "--sign-in"

    // exchange.
    case requestedTokenType = "--requested-token-type"
    case subject = "--subject"
    case subjectTokenFile = "--subject-token-file"
    case subjectTokenType = "--subject-token-type"
    case actorTokenFile = "--actor-token-file"
    case actorTokenType = "--actor-token-type"
    case noCache = "--no-cache"

    // register.
    case initialAccessTokenFile = "--initial-access-token-file"
    case keyAlg = "--key-alg"
    case clientName = "--client-name"
    case grant = "--grant"
    case softwareStatementFile = "--software-statement-file"
    case registrationDialect = "--registration-dialect"
    case show = "--show"
    case rotateKey = "--rotate-key"
    case delete = "--delete"
    case force = "--force"

    /// The long spelling, `--client-id`, as messages quote it.
    var longName: String { rawValue }

    /// The long spelling, so that `"\(key)"` reads as the user typed it, not as the Swift case name.
    var description: String { rawValue }
}
