#!/usr/bin/env python3
"""Configure the mutual-TLS Glewlwyd instance (start-mtls-instance.sh) through its admin REST API.

Creates the scopes, the user and two OIDC plugins that read the client certificate from the TLS
handshake (`client-cert-source: TLS`):
- `mtls`: the certificate is read on the ordinary endpoints (no `mtls_endpoint_aliases`);
- `mtlsalias`: `client-cert-use-endpoint-aliases`, so the metadata has `mtls_endpoint_aliases`
  and the certificate is read only on `/api/mtlsalias/mtls/...`.
Both accept self-signed certificates registered in a client's `jwks` (`x5c`).
Clients (shared by both plugins):
- `latchkey-mtls`: `tls_client_auth`, matched by the subject DN of the fleet's device certificate;
- `latchkey-mtls-self-signed`: `self_signed_tls_client_auth`, its certificate in `jwks`.

usage: configure_mtls.py --base URL --external-url URL --state DIR --ca-file PEM --fleet DIR [--interval N]
"""
import argparse
import base64
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_session import admin_api  # noqa: E402
from cryptography import x509  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402

SCOPES = ["openid", "profile", "email", "offline_access", "glwd_revoke"]
DEVICE_SUBJECT_DN = "CN=latchkey-device-0001"  # RFC 4514, as Glewlwyd prints the certificate's subject


def b64url(n: int, size: int) -> str:
    return base64.urlsafe_b64encode(n.to_bytes(size, "big")).rstrip(b"=").decode()


def certificate_jwk(pem_path: str) -> dict:
    """The certificate's EC P-256 public key as a JWK with the certificate itself in `x5c`."""
    cert = x509.load_pem_x509_certificate(open(pem_path, "rb").read())
    numbers = cert.public_key().public_numbers()
    der = cert.public_bytes(serialization.Encoding.DER)
    return {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x, 32), "y": b64url(numbers.y, 32),
            "use": "sig", "kid": "device", "x5c": [base64.b64encode(der).decode()]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--external-url", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--ca-file", required=True, help="the CA of the server's own certificate")
    ap.add_argument("--fleet", required=True, help="make_fleet_certs.sh's folder")
    ap.add_argument("--interval", type=int, default=1)
    a = ap.parse_args()

    s, api, call = admin_api(a.base, "configure_mtls", SCOPES[1:], ca_file=a.ca_file)
    jwks = open(os.path.join(a.state, "jwks-private.json")).read()

    def plugin(name, aliases):
        params = {
            "iss": f"{a.external_url}/api/{name}",
            "jwks-private": jwks, "default-kid": "es256", "jwks-show": True,
            "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600,
            "refresh-token-rolling": True, "refresh-token-one-use": "always", "allow-non-oidc": True,
            "auth-type-code-enabled": False, "auth-type-token-enabled": False, "auth-type-implicit-enabled": False,
            "auth-type-password-enabled": False, "auth-type-client-enabled": False,
            "auth-type-refresh-enabled": True, "auth-type-device-enabled": True, "auth-type-none-enabled": False,
            "device-authorization-expiration": 600, "device-authorization-interval": a.interval,
            "pkce-allowed": True, "pkce-method-plain-allowed": False,
            "introspection-revocation-allowed": True, "introspection-revocation-auth-scope": ["glwd_revoke"],
            "introspection-revocation-allow-target-client": True,
            "subject-type": "public", "name-claim": "on-demand", "email-claim": "on-demand",
            "scope-claim": "no", "claims": [], "address-claim": {"type": "no"},
            "session-management-allowed": False, "request-parameter-allow": False, "register-client-allowed": False,
            # RFC 8705: the certificate comes from Glewlwyd's own TLS handshake.
            "client-cert-source": "TLS", "client-cert-use-endpoint-aliases": aliases,
            "client-cert-self-signed-allowed": True,
        }
        call("POST", "/mod/plugin/", {"module": "oidc", "name": name, "display_name": name,
                                      "enabled": True, "parameters": params})

    plugin("mtls", False)
    plugin("mtlsalias", True)
    call("POST", "/user/", {"username": "alice", "password": "alice-password", "name": "Alice Example",
                            "email": "alice@example.test", "enabled": True, "scope": ["g_profile"] + SCOPES})
    grants = ["device_authorization", "refresh_token", "delete_token"]
    common = {"enabled": True, "confidential": True, "authorization_type": grants, "redirect_uri": [], "scope": SCOPES}
    call("POST", "/client/", {**common, "client_id": "latchkey-mtls", "name": "latchkey-mtls",
                              "token_endpoint_auth_method": ["tls_client_auth"],
                              "tls_client_auth_subject_dn": DEVICE_SUBJECT_DN})
    call("POST", "/client/", {**common, "client_id": "latchkey-mtls-self-signed", "name": "latchkey-mtls-self-signed",
                              "token_endpoint_auth_method": ["self_signed_tls_client_auth"],
                              "jwks": {"keys": [certificate_jwk(os.path.join(a.fleet, "self-signed.pem"))]}})

    # --- issue 16: client credentials with tls_client_auth (additive block). Plugin `mtlsmachine`:
    # `mtls` (certificate read on the ordinary endpoints) with the client-credentials grant on;
    # client `latchkey-mtls-machine`, matched by the device certificate's subject DN, scope `machine`.
    call("POST", "/scope/", {"name": "machine", "display_name": "machine", "description": "issue 16: client credentials",
                             "password_required": False, "scheme": {}})
    r = s.request("GET", api + "/mod/plugin/mtls")
    if r.status != 200:
        sys.exit(f"configure_mtls: GET /mod/plugin/mtls -> HTTP {r.status}")
    params = dict(r.json()["parameters"], **{"iss": f"{a.external_url}/api/mtlsmachine", "auth-type-client-enabled": True})
    call("POST", "/mod/plugin/", {"module": "oidc", "name": "mtlsmachine", "display_name": "mtlsmachine",
                                  "enabled": True, "parameters": params})
    call("POST", "/client/", {"client_id": "latchkey-mtls-machine", "name": "latchkey-mtls-machine", "enabled": True,
                              "confidential": True, "token_endpoint_auth_method": ["tls_client_auth"],
                              "tls_client_auth_subject_dn": DEVICE_SUBJECT_DN,
                              "authorization_type": ["client_credentials", "delete_token"], "redirect_uri": [],
                              "scope": ["machine", "glwd_revoke"]})
    # private_key_jwt with the certificate presented at the aliases: plugin `mtlsaliaspkjwt` (`mtlsalias`
    # plus client assertions, the public key in the client's `pubkey`), client `latchkey-mtls-pkjwt`
    # with a P-256 key written 0600 to mtls-pkjwt-es256.key. Glewlwyd checks an assertion posted to
    # `…/mtls/token` against `<issuer>/token`.
    r = s.request("GET", api + "/mod/plugin/mtlsalias")
    if r.status != 200:
        sys.exit(f"configure_mtls: GET /mod/plugin/mtlsalias -> HTTP {r.status}")
    params = dict(r.json()["parameters"], **{"iss": f"{a.external_url}/api/mtlsaliaspkjwt", "auth-type-client-enabled": True,
                                            "request-parameter-allow": True, "client-pubkey-parameter": "pubkey"})
    call("POST", "/mod/plugin/", {"module": "oidc", "name": "mtlsaliaspkjwt", "display_name": "mtlsaliaspkjwt",
                                  "enabled": True, "parameters": params})
    from cryptography.hazmat.primitives.asymmetric import ec
    key = ec.generate_private_key(ec.SECP256R1())
    fd = os.open(os.path.join(a.state, "mtls-pkjwt-es256.key"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    call("POST", "/client/", {"client_id": "latchkey-mtls-pkjwt", "name": "latchkey-mtls-pkjwt", "enabled": True,
                              "confidential": True, "password": os.urandom(18).hex(),  # never used
                              "token_endpoint_auth_method": ["private_key_jwt"],
                              "authorization_type": ["client_credentials", "delete_token"], "redirect_uri": [],
                              "scope": ["machine", "glwd_revoke"],
                              "pubkey": key.public_key().public_bytes(serialization.Encoding.PEM,
                                                                      serialization.PublicFormat.SubjectPublicKeyInfo).decode()})


if __name__ == "__main__":
    main()
