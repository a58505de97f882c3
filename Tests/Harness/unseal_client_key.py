#!/usr/bin/env python3
"""Writes the PEM of a client key `latchkey register` generated (sealed in the token file's
container under the machine key, docs/token-file.md) to OUT, mode 0600, so a probe can sign with
it as the device does. Usage: unseal_client_key.py KEYFILE OUT [PROFILE] (PROFILE: default).
The machine key is `<state-dir>/machine.key` beside `keys/`; `/etc/machine-id` is bound in."""
import os
import struct
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def main() -> int:
    path, out = sys.argv[1], sys.argv[2]
    profile = sys.argv[3] if len(sys.argv) > 3 else "default"
    data = open(path, "rb").read()
    if not data.startswith(b"LKTF"):
        raise SystemExit("not sealed: " + path)
    version, kind, name_length = data[4], data[5], data[6]
    if version != 1 or kind != 1:
        raise SystemExit("only format 1 under the machine key is read here (kind %d)" % kind)
    offset = 7 + name_length
    name = data[7:offset].decode()
    if name != profile + "@client-key":
        raise SystemExit("the key belongs to %r" % name)
    salt, nonce = data[offset:offset + 16], data[offset + 16:offset + 28]
    (length,) = struct.unpack(">I", data[offset + 28:offset + 32])
    header = data[:offset + 32]
    body = data[offset + 32:]
    if len(body) != length + 16:
        raise SystemExit("truncated")
    state = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    material = open(os.path.join(state, "machine.key"), "rb").read()
    try:
        machine_id = open("/etc/machine-id", "rb").read().strip()
    except OSError:
        machine_id = b""
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=salt, info=b"latchkey token file v1" + machine_id).derive(material)
    pem = AESGCM(key).decrypt(nonce, body, header + name.encode())
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
