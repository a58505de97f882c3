/// `register`'s entry in the catalog (kept in its own file; `CommandCatalog.all` lists it).
extension CommandCatalog {
    static let register = CommandSpec(
        id: .register, summary: "register this device as its own client (RFC 7591/7592)",
        details: """
            Zero-touch provisioning: registers this device with the issuer's registration endpoint,
            authorised by a provisioning (initial access) token read from an owner-only file, with a
            key generated here (P-256, or RSA-PSS with --key-alg PS256) written owner-only at
            <state-dir>/keys/NAME.pem and sealed as the token file is, under the profile's key
            source. The profile is then ready for `latchkey login`. The registration token and any
            client secret go to the encrypted <state-dir>/NAME@registration.tokens, never to the
            profile. --show reads the registration, --rotate-key replaces the key (the old one
            stays valid until the provider accepted the new one), --delete revokes the tokens,
            deletes the registration, then the local files. Run again after an interruption, each
            form finishes, or leaves the state as it was.
            """,
        argumentsUsage: "", maxPositionals: 0,
        options: [
            .value(.issuer, "URL", help: "issuer URL (required to create)"),
            .value(.initialAccessTokenFile, "FILE", help: "the provisioning token, owner-only (mode 0600); never stored"),
            .value(
                .authMethod, "private_key_jwt|none", help: "client authentication",
                default: "private_key_jwt when the provider lists it, else none"),
            .value(.clientKeyFile, "FILE", help: "register this existing owner-only PEM key instead of generating one"),
            .value(.keyAlg, "ES256|PS256", help: "the algorithm of the generated key", default: "ES256"),
            .value(
                .keySource, "machine|credential|file:PATH",
                help: "the profile's key source, which also seals the generated key", default: "machine"),
            .value(.clientName, "NAME", help: "client_name", default: "latchkey on <hostname>"),
            .value(.scope, "SCOPES", help: "space- or comma-separated scopes", default: "openid offline_access"),
            .value(.grant, "device|code|both", help: "the grants to register (refresh_token always)", default: "device"),
            .value(.redirectURI, "URI", help: "redirect URI for the code grant (loopback or https)"),
            .value(.softwareStatementFile, "FILE", help: "a software statement (JWT) to send"),
            .value(
                .registrationDialect, "rfc7591|glewlwyd", help: "how the provider spells RFC 7591; remembered",
                default: "rfc7591"),
            .flag(.show, help: "print the registration (RFC 7592 GET), secrets redacted"),
            .flag(.rotateKey, help: "replace the client key at the provider, then locally"),
            .flag(.delete, help: "revoke the tokens, delete the registration, then the local files"),
            .flag(.force, help: "register again although the profile is already registered")
        ],
        examples: [
            (
                "latchkey register --issuer https://id.example.com --initial-access-token-file /etc/latchkey/provisioning",
                "first boot of a kiosk: it becomes its own client, then `latchkey login` signs it in"
            )
        ])
}
