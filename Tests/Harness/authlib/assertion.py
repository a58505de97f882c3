"""Keys and ES256 assertions for the Authlib tests, with Python's `cryptography` (not Authlib).

Usage:
  assertion.py keys DIR NAME...      P-256 key pairs DIR/NAME.pem (0600) and DIR/NAME.pub.pem
  assertion.py sign KEY OUT [CLAIM=VALUE]... [--exp-in SECONDS] [--no-exp]
                                     a compact JWS (ES256) of the claims, written to OUT (0600,
                                     one line and a newline); `iat` is now, `exp` now + 300 unless
                                     --exp-in says otherwise (negative: already expired), `jti` a
                                     fresh random value unless given. VALUE is taken as JSON when
                                     it parses, else as a string. Prints the jti.
"""

import base64
import json
import os
import secrets
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def write_private(path, data):
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.rename(path + ".tmp", path)


def keys(directory, names):
    os.makedirs(directory, exist_ok=True)
    for name in names:
        key = ec.generate_private_key(ec.SECP256R1())
        write_private(os.path.join(directory, name + ".pem"), key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        with open(os.path.join(directory, name + ".pub.pem"), "wb") as f:
            f.write(key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


def sign(key_path, out, args):
    now = int(time.time())
    claims = {"iat": now, "exp": now + 300, "jti": secrets.token_urlsafe(16)}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--exp-in":
            claims["exp"] = now + int(args[i + 1])
            i += 2
            continue
        if arg == "--no-exp":
            claims.pop("exp", None)
        else:
            name, _, value = arg.partition("=")
            try:
                claims[name] = json.loads(value)
            except ValueError:
                claims[name] = value
        i += 1
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    header = {"alg": "ES256", "typ": "JWT"}
    signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    token = signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
    write_private(out, (token + "\n").encode())
    print(claims.get("jti", ""))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "keys":
        keys(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "sign":
        sign(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
