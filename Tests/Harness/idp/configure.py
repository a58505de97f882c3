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
from browser_session import BrowserSession  # noqa: E402

USER, PASSWORD = "alice", "alice-password"
SCOPES = ["openid", "profile", "email", "offline_access", "glwd_revoke"]
CODE_REDIRECTS = ["http://127.0.0.1:53682/callback", "http://localhost:53682/callback"]
CONFIDENTIAL_SECRET_FILE = "confidential-client.secret"
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
    a = ap.parse_args()

    s = BrowserSession()
    api = a.base.rstrip("/") + "/api"

    def call(method, path, body):
        r = s.request(method, api + path, json_body=body)
        if r.status != 200:
            sys.exit(f"configure: {method} {path} -> HTTP {r.status} {r.body[:300]!r}")

    call("POST", "/auth/", {"username": "admin", "password": "password"})
    for name in ["profile", "email", "offline_access", "glwd_revoke"]:
        call("POST", "/scope/", {"name": name, "display_name": name, "description": name,
                                 "password_required": False, "scheme": {}})

    jwks = open(os.path.join(a.state, "jwks-private.json")).read()

    def plugin(name, device_ttl, at_ttl, dpop=False, dpop_nonce=False, pkjwt=False):
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
        call("POST", "/mod/plugin/", {"module": "oidc", "name": name, "display_name": name,
                                      "enabled": True, "parameters": params})

    plugin("oidc", a.device_ttl, a.at_ttl)
    plugin("quickexpiry", a.short_device_ttl, a.at_ttl)
    plugin("shortlived", a.device_ttl, a.short_at_ttl)
    plugin("dpop", a.device_ttl, a.at_ttl, dpop=True)
    plugin("dpopnonce", a.device_ttl, a.at_ttl, dpop=True, dpop_nonce=True)
    plugin("pkjwt", a.device_ttl, a.at_ttl, pkjwt=True)

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
    fd = os.open(os.path.join(a.state, CONFIDENTIAL_SECRET_FILE), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secret)
    private_key_jwt_clients(call, a.state, device)


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
