#!/usr/bin/env python3
"""Configure a freshly started Glewlwyd through its admin REST API (the calls its admin UI makes).

Creates: scopes, the user, two OIDC plugin instances and the clients.
- plugin `oidc`: the normal one (device interval from --interval, long-lived tokens).
- plugin `quickexpiry`: device codes expire after --short-device-ttl seconds (expiry tests).
- plugin `shortlived`: access tokens live --short-at-ttl seconds (refresh and contention tests).
- plugin `dpop`: like `oidc`, with DPoP (RFC 9449) allowed: a proof on the token request binds
  the tokens to its key.
- plugin `dpopnonce`: like `dpop`, and every proof must carry the server's nonce
  (`oauth-dpop-nonce-mandatory`), at /token and at /userinfo.
- plugin `ciba`: like `oidc`, with OpenID CIBA in poll mode (`oauth-ciba-allowed`,
  `oauth-ciba-mode-poll-allowed`); requests stay open 600 s. Client `latchkey-ciba`.
- plugin `cibaquick`: like `ciba`, but requests expire after --short-ciba-ttl seconds.
- plugin `cibadpop`: like `ciba`, with DPoP allowed (the proof on the CIBA request binds the tokens).
- plugin `endsession`: like `oidc`, with session management (`end_session_endpoint`, `sid` in ID
  tokens); its client `latchkey-endsession` registers a post_logout_redirect_uri.
- plugin `pkjwt`: like `oidc`, with client assertions (private_key_jwt, RFC 7523) accepted: the
  client's public key is the PEM in its `pubkey` property (`client-pubkey-parameter`).
All plugins rotate refresh tokens (rolling + one-use: always) and allow revocation to a bearer
token carrying scope `glwd_revoke`. Clients are shared by all plugins; the DPoP nonce is kept per
client (not per plugin), so the DPoP tests and the probe have clients of their own.

usage: configure.py --base URL --external-url URL --state DIR [--interval N] [--short-device-ttl N]
                    [--short-at-ttl N] [--ca-file F]
Run once per fresh database.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_session import admin_api  # noqa: E402

USER, PASSWORD = "alice", "alice-password"
SCOPES = ["openid", "profile", "email", "offline_access", "glwd_revoke"]
CODE_REDIRECTS = ["http://127.0.0.1:28682/callback", "http://localhost:28682/callback"]
# Glewlwyd matches a redirect exactly, so `--flow browser` listens on a fixed port: the PAR suite has
# one of its own (28683), because suites run side by side and two listeners on one port collide.
# Both lie below the kernel's ephemeral range (ip_local_port_range, 32768-60999 on Debian): 53682
# (cli.md's paste default) is inside it, and once an outgoing connection of another test held it as
# its local port, so the listener failed with EADDRINUSE (CI, stop 42).
PAR_REDIRECTS = ["http://127.0.0.1:28683/callback"]
CONFIDENTIAL_SECRET_FILE = "confidential-client.secret"
MACHINE_SECRET_FILE = "machine-client.secret"  # issue 16: the client-credentials client
RESOURCE_API = "https://api.example.test/v1"    # issue 16: the resource indicator the tests ask for
END_SESSION_REDIRECT = "http://127.0.0.1:53682/signed-out"  # issue 18: latchkey-endsession's post_logout_redirect_uri
PKJWT_PUBKEY_PROPERTY = "pubkey"  # prepare_db.py lets the client backend keep it


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="where this script reaches the server")
    ap.add_argument("--external-url", required=True, help="the server's external_url")
    ap.add_argument("--state", required=True)
    ap.add_argument("--interval", type=int, default=1)
    ap.add_argument("--device-ttl", type=int, default=600)
    ap.add_argument("--at-ttl", type=int, default=3600)
    ap.add_argument("--short-device-ttl", type=int, default=4)
    ap.add_argument("--short-at-ttl", type=int, default=12)
    ap.add_argument("--short-ciba-ttl", type=int, default=4)
    a = ap.parse_args()

    s, api, call = admin_api(a.base, "configure", ["profile", "email", "offline_access", "glwd_revoke"])
    call("POST", "/scope/", {"name": "machine", "display_name": "machine", "description": "issue 16: client credentials",
                             "password_required": False, "scheme": {}})

    jwks = open(os.path.join(a.state, "jwks-private.json")).read()

    def plugin(name, device_ttl, at_ttl, dpop=False, dpop_nonce=False, extra=None, pkjwt=False):
        params = {
            "iss": f"{a.external_url}/api/{name}",
            "jwks-private": jwks, "default-kid": "rs256", "client-sign_kid-parameter": "sign_kid",
            "jwks-show": True,
            "access-token-duration": at_ttl, "refresh-token-duration": 1209600, "code-duration": 600,
            "refresh-token-rolling": True, "refresh-token-one-use": "always",
            "allow-non-oidc": True,
            "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": True,
            "auth-type-token-enabled": False, "auth-type-implicit-enabled": False,
            "auth-type-password-enabled": False, "auth-type-client-enabled": False,
            "auth-type-refresh-enabled": True, "auth-type-device-enabled": True,
            "auth-type-none-enabled": False,
            "device-authorization-expiration": device_ttl, "device-authorization-interval": a.interval,
            "pkce-allowed": True, "pkce-method-plain-allowed": False, "pkce-required-public-client": True,
            "introspection-revocation-allowed": True,
            "introspection-revocation-auth-scope": ["glwd_revoke"],
            "introspection-revocation-allow-target-client": True,
            "subject-type": "public", "name-claim": "on-demand", "email-claim": "on-demand",
            "scope-claim": "no", "claims": [], "address-claim": {"type": "no"},
            "session-management-allowed": False, "request-parameter-allow": False,
            "register-client-allowed": False,
        }
        if dpop:
            # iat may be up to 60 s old and 5 s ahead of the server's clock.
            params.update({"oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 60,
                           "oauth-dpop-iat-gap-duration": 5})
        if dpop_nonce:
            # One nonce per client for 1000 successful uses: a test never sees it rotate mid-run.
            params.update({"oauth-dpop-nonce-mandatory": True, "oauth-dpop-nonce-counter": 1000})
        if pkjwt:
            params.update({"request-parameter-allow": True, "client-pubkey-parameter": PKJWT_PUBKEY_PROPERTY})
        params.update(extra or {})
        call("POST", "/mod/plugin/", {"module": "oidc", "name": name, "display_name": name,
                                      "enabled": True, "parameters": params})

    plugin("oidc", a.device_ttl, a.at_ttl)
    plugin("quickexpiry", a.short_device_ttl, a.at_ttl)
    plugin("shortlived", a.device_ttl, a.short_at_ttl)
    plugin("dpop", a.device_ttl, a.at_ttl, dpop=True)
    plugin("dpopnonce", a.device_ttl, a.at_ttl, dpop=True, dpop_nonce=True)
    plugin("pkjwt", a.device_ttl, a.at_ttl, pkjwt=True)

    def ciba(expiry):
        # CIBA poll mode only (no ping/push callbacks, no e-mail to the user); Glewlwyd's interval is a fixed 5 s.
        return {"oauth-ciba-allowed": True, "oauth-ciba-mode-poll-allowed": True,
                "oauth-ciba-mode-ping-allowed": False, "oauth-ciba-mode-push-allowed": False,
                "oauth-ciba-default-expiry": expiry, "oauth-ciba-maximum-expiry": 600,
                "oauth-ciba-email-allowed": False, "oauth-ciba-user-code-allowed": False}
    plugin("ciba", a.device_ttl, a.at_ttl, extra=ciba(600))
    plugin("cibaquick", a.device_ttl, a.at_ttl, extra=ciba(a.short_ciba_ttl))
    plugin("cibadpop", a.device_ttl, a.at_ttl, dpop=True, extra=ciba(600))

    call("POST", "/user/", {"username": USER, "password": PASSWORD, "name": "Alice Example",
                            "email": "alice@example.test", "enabled": True,
                            "scope": ["g_profile"] + SCOPES})

    def client(cid, grants, sign_kid=None, redirects=(), secret=None):
        body = {"client_id": cid, "name": cid, "enabled": True, "confidential": secret is not None,
                "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"] if secret else ["none"],
                "authorization_type": grants, "redirect_uri": list(redirects), "scope": SCOPES}
        if sign_kid:
            body["sign_kid"] = sign_kid
        if secret:
            body["password"] = secret
        call("POST", "/client/", body)

    device = ["device_authorization", "refresh_token", "delete_token"]
    client("latchkey-device-rs", device)                     # default key: RS256
    client("latchkey-device-ps", device, sign_kid="ps256")
    client("latchkey-device-es", device, sign_kid="es256")
    client("latchkey-code", ["code", "refresh_token", "delete_token"], redirects=CODE_REDIRECTS)
    secret = os.urandom(18).hex()
    client("latchkey-confidential", device, secret=secret)
    client("latchkey-dpop", device, sign_kid="es256")        # the DPoP integration tests
    client("latchkey-dpop-probe", device, sign_kid="es256")  # dpop_probe.py (harness self-test)
    client("latchkey-dpop-confidential", device, sign_kid="es256", secret=secret)  # revokes with DPoP
    # CIBA: the grant type by its full URN (a short name gets 403 invalid_client at /ciba), poll mode.
    call("POST", "/client/", {"client_id": "latchkey-ciba", "name": "latchkey-ciba", "enabled": True, "confidential": True,
                              "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
                              "authorization_type": ["urn:openid:params:grant-type:ciba", "refresh_token", "delete_token"],
                              "backchannel_token_delivery_mode": "poll", "redirect_uri": [], "scope": SCOPES,
                              "password": secret})
    fd = os.open(os.path.join(a.state, CONFIDENTIAL_SECRET_FILE), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secret)
    # --- issue 16: PAR, resource indicators, client credentials (additive block) ---
    # Each plugin is a copy of `oidc` (read back through the admin API) with a few parameters on.
    def plugin_like(template, name, extra):
        r = s.request("GET", api + "/mod/plugin/" + template)
        if r.status != 200:
            sys.exit(f"configure: GET /mod/plugin/{template} -> HTTP {r.status}")
        params = dict(r.json()["parameters"])
        params["iss"] = f"{a.external_url}/api/{name}"
        params.update(extra)
        call("POST", "/mod/plugin/", {"module": "oidc", "name": name, "display_name": name,
                                      "enabled": True, "parameters": params})

    # `par`: every authorization request must be pushed (RFC 9126); a plain GET /auth is refused.
    plugin_like("oidc", "par", {"oauth-par-allowed": True, "oauth-par-required": True,
                                "oauth-par-duration": 90, "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:"})
    # `parshort`: pushed requests live 2 s, for the expired request_uri test.
    plugin_like("oidc", "parshort", {"oauth-par-allowed": True, "oauth-par-required": True,
                                     "oauth-par-duration": 2, "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:"})
    # `resource`: RFC 8707 resource indicators, allowed per scope (`resource-scope`: scope -> resources),
    # and the client-credentials grant (RFC 6749 §4.4). Short-lived access tokens for renewal tests.
    plugin_like("oidc", "resource", {"resource-allowed": True,
                                     "resource-scope": {"profile": [RESOURCE_API], "machine": [RESOURCE_API]},
                                     "auth-type-client-enabled": True})
    plugin_like("shortlived", "machine", {"auth-type-client-enabled": True, "resource-allowed": True,
                                          "resource-scope": {"machine": [RESOURCE_API]},
                                          "iss": f"{a.external_url}/api/machine"})
    client("latchkey-par", ["code", "refresh_token", "delete_token"], redirects=PAR_REDIRECTS)
    machine_secret = os.urandom(18).hex()
    call("POST", "/client/", {"client_id": "latchkey-machine", "name": "latchkey-machine", "enabled": True,
                              "confidential": True, "password": machine_secret,
                              "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"],
                              "authorization_type": ["client_credentials", "delete_token"],
                              "redirect_uri": [], "scope": ["machine", "glwd_revoke"]})
    fd = os.open(os.path.join(a.state, MACHINE_SECRET_FILE), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(machine_secret)
    # --- issue 18: RP-initiated logout. Plugin `endsession`: the `oidc` plugin's parameters plus
    # session management, which is what puts `end_session_endpoint` (and a `sid` claim) in place;
    # client `latchkey-endsession` has the registered post_logout_redirect_uri Glewlwyd requires.
    r = s.request("GET", api + "/mod/plugin/oidc")
    if r.status != 200:
        sys.exit(f"configure: GET /mod/plugin/oidc -> HTTP {r.status}")
    endsession = dict(r.json()["parameters"], **{
        "iss": f"{a.external_url}/api/endsession", "session-management-allowed": True,
        "session-cookie-name": "GLEWLWYD_OIDC_SESSION", "session-cookie-expiration": 2419200})
    call("POST", "/mod/plugin/", {"module": "oidc", "name": "endsession", "display_name": "endsession",
                                  "enabled": True, "parameters": endsession})
    call("POST", "/client/", {"client_id": "latchkey-endsession", "name": "latchkey-endsession", "enabled": True,
                              "confidential": False, "token_endpoint_auth_method": ["none"],
                              "authorization_type": device, "redirect_uri": [], "scope": SCOPES,
                              "post_logout_redirect_uri": END_SESSION_REDIRECT})

    private_key_jwt_clients(call, a.state, device)

    # --- issue 16: client credentials with private_key_jwt (additive block). Plugin `pkjwtmachine`:
    # the `pkjwt` plugin (client assertions) with the client-credentials grant on; clients
    # `latchkey-pkjwt-machine-es`/`-ps` registered with the same public keys as the pkjwt clients
    # (read back from the private halves in the state dir), grant client_credentials, scope `machine`.
    plugin_like("pkjwt", "pkjwtmachine", {"auth-type-client-enabled": True})
    pkjwt_machine_clients(call, a.state)

    # --- issue 26: dynamic client registration (additive block). Plugin `register`: the `pkjwt`
    # plugin with RFC 7591/7592 on (test-idp.md "Wave 3"); a registration needs a token with scope
    # `register`, which the confidential client `latchkey-provisioner` gets by client credentials
    # (a multi-use token, so every test can use the one written to provisioning.token).
    call("POST", "/scope/", {"name": "register", "display_name": "register", "description": "issue 26: provisioning",
                             "password_required": False, "scheme": {}})
    plugin_like("pkjwt", "register", {"auth-type-client-enabled": True, "register-client-allowed": True,
                                      "register-client-auth-scope": ["register"],
                                      "register-client-management-allowed": True,
                                      "register-client-token-one-use": False,
                                      # Whatever a registration asks for, it gets the device flow, refresh
                                      # and self-revocation only: a leaked provisioning token cannot make a
                                      # client-credentials client that needs no person.
                                      "register-default-properties": {"grant_types": {"value": [
                                          "device_authorization", "refresh_token", "delete_token"]}},
                                      "client-jwks-parameter": "jwks"})
    provisioner_secret = os.urandom(18).hex()
    call("POST", "/client/", {"client_id": "latchkey-provisioner", "name": "latchkey-provisioner", "enabled": True,
                              "confidential": True, "password": provisioner_secret,
                              "token_endpoint_auth_method": ["client_secret_basic"],
                              "authorization_type": ["client_credentials"], "redirect_uri": [], "scope": ["register"]})
    provisioning_token(a.base, provisioner_secret, a.state)


def provisioning_token(base, secret, state) -> None:
    """An initial access token (scope `register`) from the `register` plugin, written 0600."""
    import base64
    import urllib.request
    request = urllib.request.Request(base + "/api/register/token", data=b"grant_type=client_credentials&scope=register",
                                     headers={"Authorization": "Basic " + base64.b64encode(
                                         ("latchkey-provisioner:" + secret).encode()).decode(),
                                         "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        token = json.loads(answer.read())["access_token"]
    fd = os.open(os.path.join(state, "provisioning.token"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")


def pkjwt_machine_clients(call, state) -> None:
    """Client-credentials clients authenticating with private_key_jwt: the ES256 and PS256 keys of
    `private_key_jwt_clients`, no person involved (scope `machine`)."""
    from cryptography.hazmat.primitives import serialization

    for cid, alg in [("latchkey-pkjwt-machine-es", "es256"), ("latchkey-pkjwt-machine-ps", "ps256")]:
        key = serialization.load_pem_private_key(open(os.path.join(state, f"pkjwt-{alg}.key"), "rb").read(), None)
        public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        call("POST", "/client/", {
            "client_id": cid, "name": cid, "enabled": True, "confidential": True,
            "password": os.urandom(18).hex(),  # never used: the client signs instead
            "token_endpoint_auth_method": ["private_key_jwt"], "authorization_type": ["client_credentials", "delete_token"],
            "redirect_uri": [], "scope": ["machine", "glwd_revoke"], PKJWT_PUBKEY_PROPERTY: public})


def private_key_jwt_clients(call, state, grants) -> None:
    """Clients that authenticate with a key of their own (private_key_jwt), one ES256 (P-256) and
    one PS256 (RSA 2048). The harness makes the keys: the private halves are written 0600 into the
    state dir as PKCS#8 PEM, the public halves go into the client's `pubkey` property. A third
    P-256 key, registered nowhere, is the "wrong key" of the tests."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    def write_private(name, key):
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        fd = os.open(os.path.join(state, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(pem)

    for cid, alg, key in [("latchkey-pkjwt-es", "ES256", ec.generate_private_key(ec.SECP256R1())),
                          ("latchkey-pkjwt-ps", "PS256", rsa.generate_private_key(65537, 2048))]:
        write_private(f"pkjwt-{alg.lower()}.key", key)
        public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        call("POST", "/client/", {
            "client_id": cid, "name": cid, "enabled": True, "confidential": True,
            "password": os.urandom(18).hex(),  # never used: the client signs instead
            "token_endpoint_auth_method": ["private_key_jwt"], "authorization_type": grants,
            "redirect_uri": [], "scope": SCOPES, "sign_kid": "es256", PKJWT_PUBKEY_PROPERTY: public})
    write_private("pkjwt-wrong.key", ec.generate_private_key(ec.SECP256R1()))


if __name__ == "__main__":
    main()
