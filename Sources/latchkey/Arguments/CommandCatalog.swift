/// Every command and option of the contract (docs/cli.md), with the help text `--help` prints.
/// Kept as data so the parser, the help and the tests read one source.
enum CommandCatalog {
    /// Options valid before or after any command.
    static let globalOptions: [OptionSpec] = [
        .value(.profile, "NAME", help: "profile to act on", default: "default", env: ["LATCHKEY_PROFILE"]),
        .value(
            .stateDir, "DIR", help: "where profiles, keys, token files and locks live",
            default: "$STATE_DIRECTORY, else $XDG_STATE_HOME/latchkey, else ~/.local/state/latchkey",
            env: ["LATCHKEY_STATE_DIR"]),
        .value(
            .caFile, "FILE", help: "PEM bundle of trusted CAs",
            default: "the first usual system bundle that exists", env: ["LATCHKEY_CA_FILE", "SSL_CERT_FILE"]),
        .flag(.json, help: "machine-readable output on stdout", default: "off"),
        .flag(
            .verbose, short: "-v",
            help: "log each HTTP exchange to stderr, secrets redacted (tokens, codes, device_code, auth_req_id, credentials)",
            default: "off"),
        .flag(.quiet, short: "-q", help: "only errors on stderr", default: "off"),
        .flag(.help, short: "-h", help: "show help for the tool or the command"),
        .flag(.version, help: "print the version of latchkey and mbedTLS")
    ]

    static let passphraseFile = OptionSpec.value(
        .passphraseFile, "FILE", help: "read the passphrase of a 'passphrase' key source from FILE (yours, mode 0600)",
        default: "prompt on a TTY", env: ["LATCHKEY_PASSPHRASE"])
    static let clientSecretFile = OptionSpec.value(
        .clientSecretFile, "FILE", help: "read the client secret (confidential clients) from FILE",
        default: "none", env: ["LATCHKEY_CLIENT_SECRET"])

    static let login = CommandSpec(
        id: .login, summary: "sign in and save the profile",
        details: """
            Signs in with the device flow (default), a loopback browser redirect, by pasting the
            redirected URL (pushed first with --par when the provider offers PAR), with CIBA (the
            provider asks the person named by --login-hint on their own device), or, with
            --flow client-credentials, as the client itself, with no person, or, with --flow jwt-bearer,
            with an assertion from elsewhere (a Kubernetes service-account token, a SPIFFE JWT-SVID)
            read from --assertion-file at each use. --issuer and --client-id are required on a profile's first login and then
            remembered in <state-dir>/profiles/NAME.json. Human output goes to stderr; stdout stays
            empty unless --json, which prints JSON Lines events.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            .value(.issuer, "URL", help: "issuer URL (required on first login)", default: "remembered"),
            .value(.clientID, "ID", help: "OAuth client_id (required on first login)", default: "remembered"),
            .value(.scope, "SCOPES", help: "space- or comma-separated scopes to request", default: "openid offline_access"),
            .value(
                .flow, "device|browser|paste|ciba|client-credentials|jwt-bearer",
                help:
                    "how to sign in; client-credentials: the client acting as itself (RFC 6749 §4.4); jwt-bearer: the assertion of --assertion-file (RFC 7523 §2.1)",
                default: "device"),
            .value(
                .assertionFile, "FILE",
                help:
                    "--flow jwt-bearer: the JWT posted as the grant, one line, owner-only (else exit 9), read at each use and again when the token expires; remembered by path",
                default: "none"),
            .value(
                .redirectURI, "URI", help: "redirect URI for browser and paste flows; remembered",
                default: "browser: http://127.0.0.1:<ephemeral port>/callback; paste: http://127.0.0.1:53682/callback"),
            .value(
                .pkce, "auto|always|never", help: "PKCE on the device flow (the code flow always uses S256)",
                default: "auto"),
            clientSecretFile,
            .value(
                .authMethod, "none|client_secret_basic|client_secret_post|private_key_jwt|tls_client_auth|self_signed_tls_client_auth",
                help: "client authentication at the token endpoint",
                default: "none, or client_secret_basic when a secret is given"),
            .value(
                .clientCertFile, "FILE",
                help: "PEM client certificate for tls_client_auth (RFC 8705); public, so mode 0644 is fine; remembered by path",
                default: "none"),
            .value(
                .clientCertKeyFile, "FILE",
                help: "PEM private key of --client-cert-file, owner-only (mode 0600, else exit 9); remembered by path",
                default: "none"),
            .value(
                .deviceAuthorizationEndpoint, "URL", help: "override the discovered endpoint (and its mtls_endpoint_aliases entry)",
                default: "discovered"),
            .value(
                .tokenEndpoint, "URL", help: "override the discovered endpoint (and its mtls_endpoint_aliases entry)",
                default: "discovered"),
            .value(.authorizationEndpoint, "URL", help: "override the discovered endpoint", default: "discovered"),
            .value(
                .revocationEndpoint, "URL", help: "override the discovered endpoint (and its mtls_endpoint_aliases entry)",
                default: "discovered"),
            .value(.jwksURI, "URL", help: "override the discovered JWKS URL", default: "discovered"),
            .value(
                .credentialHost, "HOST[:PORT]",
                help:
                    "the host `credential get` answers for; remembered. A git profile is a Bearer profile: without --dpop it signs in with --dpop never",
                default: "the issuer's host"),
            .value(
                .credentialUsername, "NAME", help: "the username `credential get` answers with; remembered",
                default: "oauth2"),
            .value(
                .postLogoutRedirectURI, "URI", help: "post_logout_redirect_uri for `logout --end-session`; remembered",
                default: "none"),
            .value(
                .dpop, "auto|always|never",
                help: "bind the tokens to a per-session key (RFC 9449); auto: when the provider offers ES256; remembered",
                default: "auto"),
            .flag(
                .requireDPoPForOfflineAccess,
                help: "refuse (exit 2) rather than warn when a public client's offline_access token would not be DPoP-bound",
                default: "off"),
            .value(
                .par, "auto|always|never",
                help: "push the browser/paste flow's request first (RFC 9126); auto: when the provider offers it",
                default: "auto"),
            .value(.resource, "URI", help: "RFC 8707 resource indicator (repeatable); remembered", default: "none"),
            .value(
                .resourceURL, "URL",
                help:
                    "read the resource's metadata (RFC 9728) for the issuer, the resource indicator and the scopes; several issuers: --issuer chooses",
                default: "none"),
            .value(
                .acrValues, "'A B'",
                help: "ask for these authentication context classes; the ID token's acr must be one of them (else exit 8)",
                default: "none"),
            .value(
                .maxAge, "SECONDS",
                help: "ask for an authentication no older than SECONDS; the ID token's auth_time must show it (else exit 8)",
                default: "none"),
            .value(
                .param, "NAME=VALUE",
                help: "extra authorization/device request parameter (repeatable; not a protocol-owned name); remembered",
                default: "none"),
            .value(
                .keySource, "machine|passphrase|credential|file:PATH",
                help: "how the token file is encrypted; fixed at first login", default: "machine"),
            passphraseFile,
            .flag(.qr, help: "draw a QR code of the verification URL", default: "on when stderr is a TTY"),
            .flag(.noQR, help: "do not draw the QR code"),
            .value(.timeout, "SECONDS", help: "give up waiting after SECONDS", default: "the server's expiry"),
            .flag(.open, help: "try xdg-open on the URL", default: "off"),
            .value(.loginHint, "HINT", help: "--flow ciba: who is asked to approve, in the provider's format (required for ciba)"),
            .value(
                .bindingMessage, "MSG", help: "--flow ciba: a short text shown on both screens (at most 64 characters)",
                default: "none"),
            .value(
                .qrFile, "FILE.svg|FILE.png",
                help:
                    "device flow: also write the verification URL's QR code as an image; its folder must exist and be writable (else exit 2); deleted when the login ends",
                default: "none"),
            .value(
                .clientKeyFile, "FILE",
                help: "private_key_jwt: the client's PEM private key, owner-only, read at each use; remembered by path",
                default: "none"),
            .value(.clientKeyID, "KID", help: "private_key_jwt: the assertion's kid header; remembered", default: "none"),
            .value(
                .clientAssertionAlg, "ES256|ES384|PS256|RS256|…",
                help: "private_key_jwt: the signing algorithm; remembered", default: "the key's: ES256, ES384 or RS256"),
            .value(
                .clientAssertionTyp, "client-authentication+jwt|jwt",
                help: "private_key_jwt: the assertion's typ header; remembered", default: "client-authentication+jwt"),
            .value(
                .clientAssertionAud, "issuer|endpoint",
                help: "private_key_jwt: aud is the issuer, or the exact endpoint URL (Glewlwyd); remembered",
                default: "issuer"),
            .value(
                .clientAssertionFile, "FILE",
                help:
                    "private_key_jwt: a ready-made client assertion (a JWT-SVID, a service-account token) instead of --client-key-file; one line, owner-only, read at each request; remembered by path",
                default: "none")
        ],
        optionGroups: [
            OptionGroup(
                title: "Common options",
                keys: [
                    .issuer, .clientID, .scope, .flow, .resource, .param, .keySource,
                    .passphraseFile, .timeout
                ]),
            OptionGroup(title: "Resource and authentication strength", keys: [.resourceURL, .acrValues, .maxAge]),
            OptionGroup(title: "Device flow", keys: [.pkce, .qr, .noQR]),
            OptionGroup(title: "Browser and paste flows", keys: [.redirectURI, .par, .open]),
            OptionGroup(title: "CIBA", keys: [.loginHint, .bindingMessage]),
            OptionGroup(title: "JWT bearer grant", keys: [.assertionFile]),
            OptionGroup(
                title: "Client authentication",
                keys: [
                    .clientSecretFile, .authMethod, .clientKeyFile, .clientKeyID,
                    .clientAssertionAlg, .clientAssertionTyp, .clientAssertionAud, .clientAssertionFile,
                    .clientCertFile, .clientCertKeyFile
                ]),
            OptionGroup(title: "DPoP", keys: [.dpop, .requireDPoPForOfflineAccess]),
            OptionGroup(title: "Kiosk", keys: [.qrFile]),
            OptionGroup(
                title: "Endpoint overrides",
                keys: [
                    .deviceAuthorizationEndpoint, .tokenEndpoint, .authorizationEndpoint,
                    .revocationEndpoint, .jwksURI
                ]),
            OptionGroup(title: "git and logout", keys: [.credentialHost, .credentialUsername, .postLogoutRedirectURI])
        ],
        examples: [
            (
                "latchkey login --issuer https://id.example.com --client-id my-device",
                "a device with no browser: shows a URL, a code and a QR code for a phone"
            ),
            (
                "latchkey --profile forge login --issuer https://id.example.com --client-id git --credential-host git.example.com",
                "a Bearer profile for git's credential helper (DPoP off, since HTTP Basic carries no proof)"
            ),
            (
                "latchkey login --flow ciba --issuer https://id.example.com --client-id kiosk --client-secret-file /etc/latchkey/secret --login-hint alice@example.com",
                "CIBA: the provider asks alice on her own phone; no code to type"
            ),
            (
                "latchkey login --flow jwt-bearer --issuer https://id.example.com --client-id pod --assertion-file /var/run/secrets/tokens/latchkey",
                "a Kubernetes pod: its projected service-account token is the grant, read again at each renewal"
            )
        ])

    static let token = CommandSpec(
        id: .token, summary: "print a valid access token",
        details: """
            Prints a valid access token, refreshing first when it expires within --min-ttl seconds
            (by default 60, or half the lifetime of a token that lives less than 60 s; a --min-ttl given is used as given).
            With a valid cached token it does not touch the network. A --force-refresh that finds,
            once it holds the profile's lock, that another process replaced the token while it waited
            prints that token instead of refreshing again. For a DPoP-bound session the Bearer-only
            outputs (exec-credential, header without --method and --url) are exit 2: sign in with
            --dpop never for a Bearer token, or give --format header --method M --url URL.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            .value(.format, "bare|header|json|exec-credential", help: "output format", default: "bare"),
            .value(.method, "M", help: "with --format header for a DPoP-bound token: the request's method (proof htm)"),
            .value(.url, "URL", help: "with --format header for a DPoP-bound token: the request's URL (proof htu)"),
            .value(
                .minTTL, "SECONDS",
                help: "refresh when the token expires within SECONDS (by default 60, or half the lifetime of a shorter-lived token)",
                default: "60"),
            .flag(
                .forceRefresh, help: "refresh even when the token is still valid (a token another process replaced meanwhile is used)",
                default: "off"),
            clientSecretFile,
            passphraseFile
        ])

    static let proof = CommandSpec(
        id: .proof, summary: "print a DPoP proof for one request",
        details: """
            Prints a DPoP proof JWT (RFC 9449) for one request with the current access token (ath), for
            tools that send the request themselves: -H "DPoP: $(latchkey proof --method GET --url URL)".
            Exits 3 when not signed in, 2 when the session is not DPoP-bound.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            .value(.method, "M", help: "the request's HTTP method (required)"),
            .value(.url, "URL", help: "the request's URL (required)"),
            .value(
                .minTTL, "SECONDS",
                help: "refresh when the token expires within SECONDS (by default 60, or half the lifetime of a shorter-lived token)",
                default: "60"),
            clientSecretFile,
            passphraseFile
        ])

    static let idToken = CommandSpec(
        id: .idToken, summary: "print the stored, verified ID token",
        details: "Prints the stored ID token, which was verified when it was received.",
        argumentsUsage: "", maxPositionals: 0, options: [passphraseFile])

    static let claims = CommandSpec(
        id: .claims, summary: "print the verified ID token's claims as JSON",
        details: "Prints the claims of the stored, verified ID token as one JSON object.",
        argumentsUsage: "", maxPositionals: 0, options: [passphraseFile])

    static let status = CommandSpec(
        id: .status, summary: "show the profile's sign-in state",
        details: """
            Shows the profile, issuer, client_id, subject, access-token expiry, whether a refresh token
            is held, the key source and the file paths. --json prints the same as one object.
            Exits 3 when not signed in. --format openmetrics prints the Prometheus text format for
            node_exporter's textfile collector instead (no token or secret in it; never prompts;
            exit 0 when signed out, which the metrics say).
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            passphraseFile,
            .value(.format, "text|openmetrics", help: "output format", default: "text"),
            .flag(.allProfiles, help: "with --format openmetrics: every profile of the state directory", default: "off")
        ])

    static let refresh = CommandSpec(
        id: .refresh, summary: "refresh the tokens now",
        details: """
            Refreshes now. When the server rejects the refresh token the local tokens are cleared and
            the exit code is 3: run 'latchkey login' again. A token another process replaced while
            this one waited for the profile's lock counts as the refresh.
            """,
        argumentsUsage: "", maxPositionals: 0, options: [clientSecretFile, passphraseFile])

    static let logout = CommandSpec(
        id: .logout, summary: "revoke the tokens and delete the local token file",
        details: """
            Revokes the refresh token, then the access token (RFC 7009), and deletes the local token
            file. The file is deleted even when revocation fails (with a warning). The profile's
            settings are kept.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            .flag(.noRevoke, help: "skip revocation; only delete the local file", default: "off"),
            .flag(
                .endSession, help: "also print (and draw as a QR code) the provider's end_session_endpoint URL",
                default: "off"),
            .flag(
                .idTokenHint, help: "with --end-session: put the ID token in that URL (anyone who sees it gets it)",
                default: "off"),
            .flag(.qr, help: "draw the end-session QR code", default: "on when stderr is a TTY"),
            .flag(.noQR, help: "do not draw the QR code"),
            clientSecretFile, passphraseFile
        ])

    static let verify = CommandSpec(
        id: .verify, summary: "verify a compact JWS/JWT",
        details: """
            Verifies TOKEN (or the token read from stdin with '-' or no argument) and prints
            {"header":{…},"claims":{…}}. Exits 8 with the reason when verification fails.
            Keys come from --jwks, or from the jwks_uri discovered from --issuer; with both, --issuer
            is also checked against the iss claim.
            """,
        argumentsUsage: "[TOKEN|-]", maxPositionals: 1,
        options: [
            .value(.jwks, "FILE|URL", help: "the JSON Web Key Set to verify against"),
            .value(.issuer, "URL", help: "discover the jwks_uri from this issuer; require iss to equal it"),
            .value(.audience, "AUD", help: "require aud to contain AUD", default: "not checked"),
            .value(
                .alg, "ALG[,ALG…]", help: "allowed algorithms, e.g. RS256,ES256",
                default: "RS256..512, PS256..512, ES256..512"),
            .value(.leeway, "SECONDS", help: "clock leeway for exp, nbf and iat", default: "60"),
            .value(.at, "TIME", help: "check time claims as of TIME (RFC 3339 or epoch seconds)", default: "now"),
            .flag(.noTimeCheck, help: "skip exp, nbf and iat checks", default: "off")
        ])

    static let discover = CommandSpec(
        id: .discover, summary: "print an issuer's validated metadata",
        details: """
            Fetches OIDC Discovery (falling back to RFC 8414), checks that its issuer equals --issuer
            exactly, and prints the metadata as JSON.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [.value(.issuer, "URL", help: "the issuer to discover (required)")])

    static let profiles = CommandSpec(
        id: .profiles, summary: "list the profiles",
        details: "Lists the profiles with issuer, subject and expiry; --json prints an array.",
        argumentsUsage: "", maxPositionals: 0, options: [passphraseFile])

    static let credential = CommandSpec(
        id: .credential, summary: "git credential helper: answer with the access token",
        details: """
            Speaks git's credential-helper protocol on stdin/stdout, e.g.
            git config credential.https://git.example.com.helper '!latchkey --profile forge credential'.
            get answers only for protocol=https and the profile's credential host (login
            --credential-host, default the issuer's host) with username, password (a valid access
            token) and password_expiry_utc; for any other request it prints nothing. A DPoP-bound
            session gets no answer either (git's HTTP Basic carries no proof): sign the profile in
            with login --dpop never. erase makes the next get refresh first; store does nothing.
            Malformed input is a usage error (exit 2).
            """,
        argumentsUsage: "get|store|erase", maxPositionals: 1, options: [clientSecretFile, passphraseFile])

    static let fetch = CommandSpec(
        id: .fetch, summary: "send an authenticated request and print the response",
        details: """
            Sends one request with the profile's access token (Bearer, or DPoP with a fresh proof) and
            writes the response body to stdout. A 401 invalid_token refreshes once and retries once; a
            use_dpop_nonce answer is retried once. Redirects are followed within the same origin only
            (at most 3); the token never goes to another origin. Exit 0 for a final status below 400,
            10 at 400 and above (the body is still printed). Bodies up to 64 MiB. Without a session
            the request goes without a token; a 401 naming the resource's metadata (RFC 9728) exits 3
            with the issuer it trusts and the login to run, and a step-up challenge (RFC 9470,
            insufficient_user_authentication) exits 3 with what it asks. --sign-in runs that sign-in
            itself (its events on stderr) and retries once; a second step-up challenge is exit 10.
            """,
        argumentsUsage: "URL", maxPositionals: 1,
        options: [
            .value(
                .request, short: "-X", "METHOD", help: "the HTTP method, sent exactly as given (case matters: `get` is not GET)",
                default: "GET, or POST with --data"),
            .value(.header, short: "-H", "'Name: value'", help: "add a request header (repeatable; not Authorization or DPoP)"),
            .value(.data, "STRING|@FILE|@-", help: "the request body: text, a file, or stdin", default: "none"),
            .flag(.include, help: "print the status line and headers before the body", default: "off"),
            .value(
                .output, "FILE", help: "write the response to FILE (atomically, mode 0600) instead of stdout",
                default: "stdout"),
            .value(
                .exchangeAudience, "URI",
                help: "send an exchanged token for this audience instead of the session's own (RFC 8693; repeatable)",
                default: "none"),
            .value(.exchangeResource, "URI", help: "with --exchange-audience: the resource to ask for (repeatable)", default: "none"),
            .value(.exchangeScope, "S", help: "with --exchange-audience: the scope to ask for", default: "the server's"),
            .flag(
                .signIn,
                help: "sign in when the resource asks (its metadata's issuer, or a step-up), then retry once; never otherwise",
                default: "off"),
            .value(.clientID, "ID", help: "--sign-in: the client to sign in with", default: "the profile's"),
            .value(.issuer, "URL", help: "--sign-in: which of several issuers the resource names", default: "none"),
            .value(
                .flow, "device|browser|paste|ciba", help: "--sign-in: how to sign in (the events go to stderr)",
                default: "the profile's last sign-in flow, else device"),
            .value(.timeout, "SECONDS", help: "--sign-in: give up waiting after SECONDS", default: "the server's expiry"),
            clientSecretFile,
            passphraseFile
        ])

    static let exchange = CommandSpec(
        id: .exchange, summary: "exchange a token for a narrower one for one service (RFC 8693)",
        details: """
            Posts a token exchange (RFC 8693) to the profile's token endpoint with the profile's client
            authentication (and a DPoP proof for a DPoP-bound session), and prints the issued token
            like token does. The subject is the profile's access token (refreshed first when it expires
            within --min-ttl), its refresh or ID token (--subject), or a token from --subject-token-file
            of --subject-token-type. Short type names (access_token, refresh_token, id_token, jwt) expand
            to the urn:ietf:params:oauth:token-type: URNs. Token files must be yours and mode 0600 (else
            exit 9) and hold one token on one line; more lines, or not a JWT for a jwt or id_token type,
            is exit 2. Access tokens issued for the profile's own access token are cached in the token
            file by audience, resource, scope and requested type (at most 16, the least recently used
            dropped) and reused while they have more than --min-ttl left; logout and a new login drop
            them. A JWT's exp wins over expires_in. Server errors are exit 7 (invalid_target names what
            was asked for); not signed in is exit 3.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            .value(.audience, "URI", help: "the service the token is for (repeatable)", default: "none"),
            .value(.resource, "URI", help: "the absolute URI of the service (RFC 8707; repeatable)", default: "none"),
            .value(.scope, "S", help: "the scope to ask for, space-separated (narrower than the subject's)", default: "the server's"),
            .value(
                .requestedTokenType, "access_token|refresh_token|id_token|jwt|URN", help: "the type of token to ask for",
                default: "access_token"),
            .value(.subject, "access|refresh|id", help: "which of the profile's tokens to exchange", default: "access"),
            .value(
                .subjectTokenFile, "FILE", help: "exchange the token in FILE instead (yours, mode 0600; one line); never cached",
                default: "none"),
            .value(.subjectTokenType, "URN", help: "the type of --subject-token-file's token (short names expand)"),
            .value(.actorTokenFile, "FILE", help: "the actor's token (delegation), read like --subject-token-file", default: "none"),
            .value(.actorTokenType, "URN", help: "the type of --actor-token-file's token (short names expand)"),
            .value(.format, "bare|json|header", help: "output format", default: "bare"),
            .value(
                .minTTL, "SECONDS",
                help: "reuse a cached token, and the subject access token, only with more than SECONDS left", default: "60"),
            .flag(.noCache, help: "neither read nor write the cache of exchanged tokens", default: "off"),
            clientSecretFile,
            passphraseFile
        ],
        examples: [
            (
                "latchkey exchange --audience billing-api --scope invoices:read",
                "a token only billing-api accepts, with one scope, cached for the next call"
            ),
            (
                "latchkey exchange --subject-token-file /var/run/secrets/tokens/sa --subject-token-type jwt --no-cache",
                "exchange a Kubernetes projected service-account token"
            )
        ])

    static let config = CommandSpec(
        id: .config, summary: "show or change what a profile remembers, without a new login",
        details: """
            config get KEY, config set KEY VALUE and config unset KEY change the settings that do not
            change the sign-in: ca-file, credential-host, credential-username, post-logout-redirect-uri
            and min-ttl (the default --min-ttl of token, fetch, proof and credential get, used as given).
            Values are checked as login checks them. Any other login option is exit 2: changing it needs
            a new login. config list prints everything the profile remembers (a JSON object with
            --json); the profile holds no secret.
            """,
        argumentsUsage: "get|set|unset KEY [VALUE] | list", maxPositionals: 3, options: [])

    static let completion = CommandSpec(
        id: .completion, summary: "print a shell completion script (bash, zsh, fish)",
        details: """
            Prints the completion script for the shell, generated from the same command list as
            --help: commands, options, the fixed values of options such as --flow and --dpop, and
            profile names. source <(latchkey completion bash) tries it; the package installs all
            three. completion profiles prints the profile names, one a line, which the scripts ask for.
            """,
        argumentsUsage: "bash|zsh|fish|profiles", maxPositionals: 1, options: [])

    static let manual = CommandSpec(
        id: .manual, summary: "print the latchkey(1) manual page (roff)",
        details: """
            Prints latchkey(1) in roff, generated from the same command list as --help; the package
            build writes it with this command. Read it with: latchkey manual | man -l -
            """,
        argumentsUsage: "", maxPositionals: 0, options: [])

    /// The command called `word` (its name or an alias). Only that command's spec is built: each
    /// is a lazily made static, and building every command's help text would be a tenth of a cached
    /// `latchkey token`.
    static func named(_ word: String) -> CommandSpec? { CommandName(word: word).map(spec) }

    /// The spec of `name`.
    static func spec(_ name: CommandName) -> CommandSpec {
        switch name {
        case .login: login
        case .token: token
        case .proof: proof
        case .idToken: idToken
        case .claims: claims
        case .status: status
        case .refresh: refresh
        case .logout: logout
        case .verify: verify
        case .discover: discover
        case .profiles: profiles
        case .fetch: fetch
        case .credential: credential
        case .exchange: exchange
        case .config: config
        case .register: register
        case .completion: completion
        case .manual: manual
        }
    }

    /// All commands in the order help lists them.
    static let all: [CommandSpec] = CommandName.allCases.map(spec)
}
