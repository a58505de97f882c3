#!/usr/bin/env python3
"""Probe the test Glewlwyd's private_key_jwt (RFC 7523) behaviour with raw HTTP and hand-made
client assertions, independently of Latchkey's own code: the harness self-test for the `pkjwt`
plugin and the facts GlewlwydPrivateKeyJWTTests relies on.

usage: pkjwt_probe.py --issuer ISSUER --client-id ID --key PEM --alg ES256|PS256 --wrong-key PEM [--ca-file PEM]
Prints one JSON object per check ({"check", "ok", "measured"}) and exits 1 when any check fails.
"""
import argparse
import base64
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def assertion(key_file, alg, claims, typ="client-authentication+jwt"):
    with open(key_file, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    alg = "ES256" if isinstance(key, ec.EllipticCurvePrivateKey) else alg  # the wrong key is P-256
    signing_input = (b64u(json.dumps({"alg": alg, "typ": typ}).encode()) + "." + b64u(json.dumps(claims).encode())).encode()
    if alg == "ES256":
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        signature = key.sign(signing_input, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
    return signing_input.decode() + "." + b64u(signature)


def main() -> None:
    ap = argparse.ArgumentParser()
    for name in ["--issuer", "--client-id", "--key", "--alg", "--wrong-key"]:
        ap.add_argument(name, required=True)
    ap.add_argument("--ca-file")
    a = ap.parse_args()
    context = ssl.create_default_context(cafile=a.ca_file) if a.ca_file else None
    failures = 0

    def post(path, form):
        req = urllib.request.Request(a.issuer + path, data=urllib.parse.urlencode(form).encode(), method="POST")
        try:
            with urllib.request.urlopen(req, context=context) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def device(aud, key=a.key, jti=None, client_id=True):
        now = int(time.time())
        claims = {"iss": a.client_id, "sub": a.client_id, "aud": aud, "jti": jti or b64u(os.urandom(16)),
                  "iat": now, "exp": now + 60}
        form = {"client_assertion_type": ASSERTION_TYPE, "client_assertion": assertion(key, a.alg, claims),
                "scope": "openid"}
        if client_id:
            form["client_id"] = a.client_id
        return post("/device_authorization", form)

    def token(aud, key=a.key):
        now = int(time.time())
        claims = {"iss": a.client_id, "sub": a.client_id, "aud": aud, "jti": b64u(os.urandom(16)), "iat": now, "exp": now + 60}
        return post("/token", {"client_id": a.client_id, "client_assertion_type": ASSERTION_TYPE,
                               "client_assertion": assertion(key, a.alg, claims),
                               "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "not-a-code"})

    def check(name, ok, measured):
        nonlocal failures
        failures += 0 if ok else 1
        print(json.dumps({"check": name, "ok": bool(ok), "measured": measured}), flush=True)

    def show(status, body):
        return f"HTTP {status} {body[:80].decode(errors='replace')!r}"

    st, body = device(a.issuer + "/device_authorization")
    check(f"{a.alg}: aud = the endpoint URL at /device_authorization -> 200", st == 200 and b"device_code" in body, show(st, body))
    st, body = device(a.issuer)
    check(f"{a.alg}: aud = the issuer -> 401 unauthorized_client", st == 401 and b"unauthorized_client" in body, show(st, body))
    st, body = device([a.issuer + "/device_authorization"])
    check(f"{a.alg}: aud as an array -> refused", st == 401, show(st, body))
    st, body = device(a.issuer + "/device_authorization", client_id=False)
    check(f"{a.alg}: no client_id in the body at /device_authorization -> 200", st == 200, show(st, body))
    st, body = device(a.issuer + "/device_authorization", key=a.wrong_key)
    check(f"{a.alg}: a key not registered for the client -> 401", st == 401, show(st, body))
    jti = b64u(os.urandom(16))
    first, _ = device(a.issuer + "/device_authorization", jti=jti)
    st, body = device(a.issuer + "/device_authorization", jti=jti)
    check(f"{a.alg}: a replayed jti -> 401", first == 200 and st == 401, f"first {first}, then {show(st, body)}")
    st, body = token(a.issuer)
    check(f"{a.alg}: aud = the issuer at /token -> 403, empty body", st == 403 and body.strip() == b"", show(st, body))
    st, body = token(a.issuer + "/token")
    check(f"{a.alg}: aud = <issuer>/token at /token -> past client authentication (the bogus device code is refused)",
          st == 400, show(st, body))
    print(json.dumps({"summary": "pkjwt_probe", "issuer": a.issuer, "failures": failures}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
