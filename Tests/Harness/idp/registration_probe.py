#!/usr/bin/env python3
"""Raw-HTTP checks of a registered client at the test Glewlwyd, independently of Latchkey's code:
  registration_probe.py assertion --endpoint URL --client-id ID --key PEM --kid KID [--ca-file PEM]
      POSTs a device authorization request authenticated by a hand-made client assertion
      (aud = the endpoint URL, as Glewlwyd wants) signed with KEY; prints the HTTP status.
  registration_probe.py userinfo --endpoint URL [--ca-file PEM]   (the access token on stdin)
      GETs the userinfo endpoint with the token as Bearer; prints the HTTP status.
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


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(key_file: str, kid: str, claims: dict) -> str:
    with open(key_file, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    alg = "ES256" if isinstance(key, ec.EllipticCurvePrivateKey) else "PS256"
    header = {"alg": alg, "typ": "client-authentication+jwt", "kid": kid}
    signing_input = (b64u(json.dumps(header).encode()) + "." + b64u(json.dumps(claims).encode())).encode()
    if alg == "ES256":
        r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        signature = key.sign(signing_input, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
    return signing_input.decode() + "." + b64u(signature)


def status(request: urllib.request.Request, ca_file) -> int:
    context = ssl.create_default_context(cafile=ca_file) if ca_file else None
    try:
        with urllib.request.urlopen(request, timeout=15, context=context) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["assertion", "userinfo"])
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--client-id")
    ap.add_argument("--key")
    ap.add_argument("--kid")
    ap.add_argument("--ca-file")
    a = ap.parse_args()
    if a.mode == "assertion":
        now = int(time.time())
        claims = {"iss": a.client_id, "sub": a.client_id, "aud": a.endpoint, "iat": now, "exp": now + 60,
                  "jti": b64u(os.urandom(16))}
        form = urllib.parse.urlencode({"client_id": a.client_id, "scope": "openid",
                                       "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                                       "client_assertion": sign(a.key, a.kid, claims)}).encode()
        request = urllib.request.Request(a.endpoint, data=form, headers={"Content-Type": "application/x-www-form-urlencoded"})
    else:
        token = sys.stdin.read().strip()
        request = urllib.request.Request(a.endpoint, headers={"Authorization": "Bearer " + token})
    print(status(request, a.ca_file))


if __name__ == "__main__":
    main()
