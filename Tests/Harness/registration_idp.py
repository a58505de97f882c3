#!/usr/bin/env python3
"""A scripted RFC 7591 / RFC 7592 provider, strict to the RFCs, for `latchkey register` tests.

On 127.0.0.1 only; prints its port when ready; appends one JSON line per request to --log:
  {"method", "path", "authorization": "sha256:<16 hex>" | null, "body": {...} | null, "status"}
(the Authorization value hashed, never in clear). Issuer http://127.0.0.1:PORT. Endpoints:
/.well-known/openid-configuration, /register (POST, Bearer = the --token-file's token),
/register/<client_id> (GET, PUT, DELETE with the registration access token), /revoke (200),
/token (refresh_token grant only: the client authenticates with private_key_jwt, and the assertion
must verify against a key of the `jwks` the provider holds for that client *now*, so a test can
prove a profile still signs in; the log body names the grant, the kid and the verdict).

Strict RFC behaviour: 201 on create, 204 on delete, `grant_types` must use the RFC 8628 URN
(`device_authorization` is refused with 400 invalid_client_metadata), a PUT must carry client_id.
Scenarios change one thing:
  ok, refuse-token (401 on POST), error:<code> (400 with that code; its description holds control
  characters), no-client-id, foreign-uri (registration_client_uri on another origin),
  jwks-changed (echoes another key), no-registration-endpoint, put-fails (500 on PUT),
  delete-refused (403 on DELETE; GET still answers), rotate-token (every PUT answers with a new
  registration access token and the old one stops working, RFC 7592 §3), second-put-fails (the
  second PUT of a client is 500, and so are its two repeats), hostile-client-id (a client_id with terminal escapes).
Several scenarios combine with commas: `rotate-token,second-put-fails`.
"""
import argparse
import hashlib
import json
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
import base64

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def other_jwk() -> dict:
    numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64u(numbers.x.to_bytes(32, "big")), "y": b64u(numbers.y.to_bytes(32, "big")),
            "kid": "not-yours"}


def b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64int(text: str) -> int:
    return int.from_bytes(b64d(text), "big")


def verify_assertion(assertion: str, jwks: dict):
    """The kid of a valid RFC 7523 assertion signed by a key of `jwks`, or raises ValueError."""
    head, body, sig = assertion.split(".")
    header, claims, signature = json.loads(b64d(head)), json.loads(b64d(body)), b64d(sig)
    key = next((k for k in jwks.get("keys", []) if k.get("kid") == header.get("kid")), None)
    if key is None:
        raise ValueError("no registered key has kid %r" % header.get("kid"))
    signed = (head + "." + body).encode()
    try:
        if key["kty"] == "EC":
            curve, digest, size = {"P-256": (ec.SECP256R1(), hashes.SHA256(), 32),
                                   "P-384": (ec.SECP384R1(), hashes.SHA384(), 48)}[key["crv"]]
            public = ec.EllipticCurvePublicNumbers(b64int(key["x"]), b64int(key["y"]), curve).public_key()
            der = encode_dss_signature(int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big"))
            public.verify(der, signed, ec.ECDSA(digest))
        else:
            public = rsa.RSAPublicNumbers(b64int(key["e"]), b64int(key["n"])).public_key()
            public.verify(signature, signed, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
    except InvalidSignature:
        raise ValueError("the signature does not verify")
    if claims.get("exp", 0) < time.time():
        raise ValueError("expired")
    return header.get("kid"), claims


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", default="ok")
    parser.add_argument("--log", required=True)
    parser.add_argument("--token-file", required=True)
    args = parser.parse_args()
    with open(args.token_file) as f:
        provisioning = f.read().strip()
    clients: dict[str, dict] = {}
    tokens: dict[str, str] = {}
    lock = threading.Lock()
    scenarios = set(args.scenario.split(","))
    scenario = args.scenario
    puts: dict[str, int] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def issuer(self) -> str:
            return "http://127.0.0.1:%d" % self.server.server_address[1]

        def reply(self, status: int, body=None, log_body=None):
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            auth = self.headers.get("Authorization")
            entry = {"method": self.command, "path": self.path, "status": status, "body": log_body,
                     "authorization": None if auth is None else "sha256:" + hashlib.sha256(auth.encode()).hexdigest()[:16]}
            with lock, open(args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

        def bearer(self):
            auth = self.headers.get("Authorization", "")
            return auth[7:] if auth.startswith("Bearer ") else None

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return None

        def do_GET(self):
            if self.path == "/.well-known/openid-configuration":
                meta = {"issuer": self.issuer(), "token_endpoint": self.issuer() + "/token",
                        "device_authorization_endpoint": self.issuer() + "/device_authorization",
                        "revocation_endpoint": self.issuer() + "/revoke",
                        "jwks_uri": self.issuer() + "/jwks",
                        "token_endpoint_auth_methods_supported": ["private_key_jwt", "none"],
                        "grant_types_supported": [DEVICE_GRANT, "refresh_token"]}
                if "no-registration-endpoint" not in scenarios:
                    meta["registration_endpoint"] = self.issuer() + "/register"
                return self.reply(200, meta)
            return self.manage()

        def do_PUT(self):
            return self.manage()

        def do_DELETE(self):
            return self.manage()

        def manage(self):
            body = self.body() if self.command == "PUT" else None
            if not self.path.startswith("/register/"):
                return self.reply(404, {"error": "not_found"})
            client_id = urllib.parse.unquote(self.path[len("/register/"):])
            token = self.bearer()
            with lock:
                known = client_id in clients and tokens.get(client_id) == token
            if not known:
                return self.reply(401, None, body)
            if self.command == "GET":
                return self.reply(200, dict(clients[client_id], client_id=client_id))
            if self.command == "DELETE" and "delete-refused" in scenarios:
                return self.reply(403, {"error": "access_denied"})
            if self.command == "DELETE":
                with lock:
                    del clients[client_id]
                    del tokens[client_id]
                return self.reply(204, None)
            with lock:
                puts[client_id] = puts.get(client_id, 0) + 1
                count = puts[client_id]
            # A PUT is repeated on a 5xx (the one transient rule: 3 attempts), so "the second PUT
            # fails" is the second, third and fourth request; the next run's PUT succeeds.
            if "put-fails" in scenarios or ("second-put-fails" in scenarios and 2 <= count <= 4):
                return self.reply(500, {"error": "server_error"}, body)
            if not isinstance(body, dict) or body.get("client_id") != client_id:
                return self.reply(400, {"error": "invalid_client_metadata", "error_description": "client_id must be repeated"}, body)
            stored = {k: v for k, v in body.items() if k != "client_id"}
            answer = dict(stored, client_id=client_id)
            with lock:
                clients[client_id] = stored
                if "rotate-token" in scenarios:
                    tokens[client_id] = "rat-" + secrets.token_urlsafe(24)
                    answer["registration_access_token"] = tokens[client_id]
            return self.reply(200, answer, body)

        def token(self):
            length = int(self.headers.get("Content-Length") or 0)
            form = urllib.parse.parse_qs(self.rfile.read(length).decode() if length else "")
            field = lambda name: (form.get(name) or [None])[0]
            entry = {"grant_type": field("grant_type")}
            assertion = field("client_assertion")
            if field("grant_type") != "refresh_token" or not field("refresh_token"):
                return self.reply(400, {"error": "unsupported_grant_type"}, entry)
            if assertion is None or field("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
                return self.reply(401, {"error": "invalid_client"}, entry)
            try:
                iss = json.loads(b64d(assertion.split(".")[1])).get("iss")
                with lock:
                    jwks = dict(clients.get(iss, {}).get("jwks") or {})
                kid, claims = verify_assertion(assertion, jwks)
                if claims.get("sub") != iss or claims.get("aud") not in (self.issuer(), self.issuer() + "/token"):
                    raise ValueError("iss, sub or aud is wrong")
            except (ValueError, KeyError, IndexError) as error:
                entry["refused"] = str(error)
                return self.reply(401, {"error": "invalid_client"}, entry)
            entry["kid"] = kid
            return self.reply(200, {"access_token": "at-" + secrets.token_urlsafe(16), "token_type": "Bearer",
                                    "expires_in": 3600, "refresh_token": field("refresh_token")}, entry)

        def do_POST(self):
            if self.path == "/token":
                return self.token()
            body = self.body()
            if self.path == "/revoke":
                return self.reply(200, None)
            if self.path != "/register":
                return self.reply(404, {"error": "not_found"})
            if "refuse-token" in scenarios or self.bearer() != provisioning:
                return self.reply(401, None, body)
            if scenario.startswith("error:"):
                return self.reply(400, {"error": scenario[6:], "error_description": "refused\u001b[31m by\nthe script"}, body)
            if not isinstance(body, dict):
                return self.reply(400, {"error": "invalid_client_metadata", "error_description": "not a JSON object"}, body)
            if "device_authorization" in body.get("grant_types", []):
                return self.reply(400, {"error": "invalid_client_metadata", "error_description": "unknown grant"}, body)
            client_id = "dyn-" + secrets.token_hex(6)
            if "hostile-client-id" in scenarios:
                client_id += "\u001b]0;owned\u0007\u001b[2J"
            token = "rat-" + secrets.token_urlsafe(24)
            with lock:
                clients[client_id] = dict(body)
                tokens[client_id] = token
            answer = dict(body, client_id=client_id, client_id_issued_at=1, client_secret_expires_at=0,
                          registration_access_token=token, registration_client_uri=self.issuer() + "/register/" + urllib.parse.quote(client_id))
            if "no-client-id" in scenarios:
                del answer["client_id"]
            if "foreign-uri" in scenarios:
                answer["registration_client_uri"] = "https://registrar.example.net/register/" + client_id
            if "jwks-changed" in scenarios:
                answer["jwks"] = {"keys": [other_jwk()]}
            return self.reply(201, answer, body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
