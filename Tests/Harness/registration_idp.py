#!/usr/bin/env python3
"""A scripted RFC 7591 / RFC 7592 provider, strict to the RFCs, for `latchkey register` tests.

On 127.0.0.1 only; prints its port when ready; appends one JSON line per request to --log:
  {"method", "path", "authorization": "sha256:<16 hex>" | null, "body": {...} | null, "status"}
(the Authorization value hashed, never in clear). Issuer http://127.0.0.1:PORT. Endpoints:
/.well-known/openid-configuration, /register (POST, Bearer = the --token-file's token),
/register/<client_id> (GET, PUT, DELETE with the registration access token), /revoke (200).

Strict RFC behaviour: 201 on create, 204 on delete, `grant_types` must use the RFC 8628 URN
(`device_authorization` is refused with 400 invalid_client_metadata), a PUT must carry client_id.
Scenarios change one thing:
  ok, refuse-token (401 on POST), error:<code> (400 with that code; its description holds control
  characters), no-client-id, foreign-uri (registration_client_uri on another origin),
  jwks-changed (echoes another key), no-registration-endpoint, put-fails (500 on PUT).
"""
import argparse
import hashlib
import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives.asymmetric import ec
import base64

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def other_jwk() -> dict:
    numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64u(numbers.x.to_bytes(32, "big")), "y": b64u(numbers.y.to_bytes(32, "big")),
            "kid": "not-yours"}


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
    scenario = args.scenario

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
                if scenario != "no-registration-endpoint":
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
            client_id = self.path[len("/register/"):]
            token = self.bearer()
            with lock:
                known = client_id in clients and tokens.get(client_id) == token
            if not known:
                return self.reply(401, None, body)
            if self.command == "GET":
                return self.reply(200, dict(clients[client_id], client_id=client_id))
            if self.command == "DELETE":
                with lock:
                    del clients[client_id]
                    del tokens[client_id]
                return self.reply(204, None)
            if scenario == "put-fails":
                return self.reply(500, {"error": "server_error"}, body)
            if not isinstance(body, dict) or body.get("client_id") != client_id:
                return self.reply(400, {"error": "invalid_client_metadata", "error_description": "client_id must be repeated"}, body)
            stored = {k: v for k, v in body.items() if k != "client_id"}
            with lock:
                clients[client_id] = stored
            return self.reply(200, dict(stored, client_id=client_id), body)

        def do_POST(self):
            body = self.body()
            if self.path == "/revoke":
                return self.reply(200, None)
            if self.path != "/register":
                return self.reply(404, {"error": "not_found"})
            if scenario == "refuse-token" or self.bearer() != provisioning:
                return self.reply(401, None, body)
            if scenario.startswith("error:"):
                return self.reply(400, {"error": scenario[6:], "error_description": "refused\u001b[31m by\nthe script"}, body)
            if not isinstance(body, dict):
                return self.reply(400, {"error": "invalid_client_metadata", "error_description": "not a JSON object"}, body)
            if "device_authorization" in body.get("grant_types", []):
                return self.reply(400, {"error": "invalid_client_metadata", "error_description": "unknown grant"}, body)
            client_id = "dyn-" + secrets.token_hex(6)
            token = "rat-" + secrets.token_urlsafe(24)
            with lock:
                clients[client_id] = dict(body)
                tokens[client_id] = token
            answer = dict(body, client_id=client_id, client_id_issued_at=1, client_secret_expires_at=0,
                          registration_access_token=token, registration_client_uri=self.issuer() + "/register/" + client_id)
            if scenario == "no-client-id":
                del answer["client_id"]
            if scenario == "foreign-uri":
                answer["registration_client_uri"] = "https://registrar.example.net/register/" + client_id
            if scenario == "jwks-changed":
                answer["jwks"] = {"keys": [other_jwk()]}
            return self.reply(201, answer, body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
