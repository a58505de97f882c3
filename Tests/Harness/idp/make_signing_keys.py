#!/usr/bin/env python3
"""Write a private JWKS for Glewlwyd's OIDC plugin: one RS256, one PS256 and one ES256 key.

Each client picks its key by `sign_kid`, so one server covers the three algorithm families
the client must verify. Uses the `cryptography` package (installed by Tests/run-all.sh).

usage: make_signing_keys.py OUT.json
"""
import base64
import json
import os
import sys

from cryptography.hazmat.primitives.asymmetric import ec, rsa


def b64u(n: int, length: int = 0) -> str:
    raw = n.to_bytes(length or (n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def rsa_jwk(kid: str, alg: str) -> dict:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    p = key.private_numbers()
    pub = p.public_numbers
    return {"kty": "RSA", "kid": kid, "alg": alg, "use": "sig",
            "n": b64u(pub.n), "e": b64u(pub.e), "d": b64u(p.d), "p": b64u(p.p), "q": b64u(p.q),
            "dp": b64u(p.dmp1), "dq": b64u(p.dmq1), "qi": b64u(p.iqmp)}


def ec_jwk(kid: str) -> dict:
    key = ec.generate_private_key(ec.SECP256R1())
    p = key.private_numbers()
    # EC coordinates are fixed-width (32 bytes for P-256), unlike RSA integers.
    return {"kty": "EC", "kid": kid, "alg": "ES256", "use": "sig", "crv": "P-256",
            "x": b64u(p.public_numbers.x, 32), "y": b64u(p.public_numbers.y, 32),
            "d": b64u(p.private_value, 32)}


def main() -> None:
    jwks = {"keys": [rsa_jwk("rs256", "RS256"), rsa_jwk("ps256", "PS256"), ec_jwk("es256")]}
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(jwks, out)


if __name__ == "__main__":
    main()
