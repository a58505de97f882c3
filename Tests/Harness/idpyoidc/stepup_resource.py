"""A resource server that asks for a stronger sign-in (RFC 9470), in front of the idpyoidc OP.

Usage: stepup_resource.py --issuer ISSUER --log FILE [--acr mfa] [--max-age N]
                          [--ca-file CA] [--tls CERT KEY]

No library emits RFC 9470 challenges, so this is our own: it listens on 127.0.0.1, port 0 (the
kernel picks it), and prints the port as its first line on stdout once it accepts connections
(https://localhost:PORT with --tls, else http://127.0.0.1:PORT).

GET /api/report checks the bearer access token for real: idpyoidc's access tokens are JWTs
signed with the OP's own keys (op.py's JWTToken), so the signature is verified against the
keys the OP publishes (its discovery's `jwks_uri`, read over TLS with --ca-file), then `iss`,
`exp` and `token_class`. op.py adds the authentication's `acr` to them (`base_claims`); they
carry no `auth_time`, so `max_age` is only asked for, not checked here (Latchkey checks it in
the ID token).
- no token, or one that fails those checks: 401 `Bearer error="invalid_token"`;
- a good token whose `acr` is not --acr: 401 `Bearer error="insufficient_user_authentication",
  acr_values="ACR"` (and `max_age=N` with --max-age), RFC 9470 §3;
- else 200 with {"report", "sub", "acr"}.

Every request is logged as one JSON line in the --log FILE: {"t", "method", "path", "status",
"token": the verified claims `acr`, `sub`, `iat` (or null), "error"} (never the token itself).
"""

import argparse
import base64
import http.server
import json
import socket
import ssl
import sys
import threading
import time
import urllib.request

from cryptojwt.jwk.jwk import key_from_jwk_dict
from cryptojwt.jws.jws import JWS

ALGORITHMS = ["RS256", "ES256"]


class Keys:
    """The OP's published signing keys, read again when a token names a kid not yet seen (the
    OP writes its keys at start-up; this server may start first)."""

    def __init__(self, issuer, context):
        self.issuer = issuer
        self.context = context
        self.lock = threading.Lock()
        self.keys = []

    def _get(self, url):
        with urllib.request.urlopen(url, timeout=10, context=self.context) as answer:
            return json.loads(answer.read())

    def _load(self):
        metadata = self._get(self.issuer + "/.well-known/openid-configuration")
        jwks = self._get(metadata["jwks_uri"])
        # Only public keys of the kinds the OP signs with: never a symmetric one.
        self.keys = [key_from_jwk_dict(k) for k in jwks.get("keys", []) if k.get("kty") in ("RSA", "EC")]

    def for_kid(self, kid):
        with self.lock:
            if not any(k.kid == kid for k in self.keys):
                self._load()
            return [k for k in self.keys if k.kid == kid] if kid else list(self.keys)


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "stepup-resource"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        started = time.time()
        status, headers, body, claims, error = self._answer()
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        entry = {"t": started, "method": self.command, "path": self.path.split("?")[0], "status": status,
                 "token": {k: claims.get(k) for k in ("acr", "sub", "iat")} if claims else None, "error": error}
        with self.server.log_lock:
            with open(self.server.log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def _answer(self):
        if self.path.split("?")[0] != "/api/report":
            return 404, [], {"error": "not_found"}, None, "not_found"
        authorization = self.headers.get("Authorization") or ""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return 401, [("WWW-Authenticate", "Bearer")], {"error": "unauthorized"}, None, "no_token"
        try:
            claims = self._verify(token.strip())
        except Exception as failure:
            challenge = 'Bearer error="invalid_token", error_description="the access token is not valid"'
            return 401, [("WWW-Authenticate", challenge)], {"error": "invalid_token"}, None, str(failure) or type(failure).__name__
        if claims.get("acr") != self.server.acr:
            challenge = (f'Bearer error="insufficient_user_authentication", '
                         f'error_description="a stronger sign-in is required", acr_values="{self.server.acr}"')
            if self.server.max_age is not None:
                challenge += f", max_age={self.server.max_age}"
            return 401, [("WWW-Authenticate", challenge)], {"error": "insufficient_user_authentication"}, claims, "acr"
        return 200, [], {"report": "quarterly", "sub": claims.get("sub"), "acr": claims.get("acr")}, claims, None

    def _verify(self, token):
        header = json.loads(_b64decode(token.split(".")[0]))
        keys = self.server.keys.for_kid(header.get("kid"))
        claims = JWS(alg=ALGORITHMS).verify_compact(token, keys=keys)
        if claims.get("iss") != self.server.issuer:
            raise ValueError(f"iss {claims.get('iss')!r}")
        if not isinstance(claims.get("exp"), int) or claims["exp"] <= time.time():
            raise ValueError("expired")
        if claims.get("token_class") != "access_token":
            raise ValueError(f"token_class {claims.get('token_class')!r}")
        return claims


def _b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(self.server_address)
        self.server_address = self.socket.getsockname()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--acr", default="mfa")
    parser.add_argument("--max-age", type=int)
    parser.add_argument("--ca-file")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.issuer = args.issuer
    server.acr = args.acr
    server.max_age = args.max_age
    server.log_path = args.log
    server.log_lock = threading.Lock()
    client = ssl.create_default_context(cafile=args.ca_file) if args.ca_file else None
    server.keys = Keys(args.issuer, client)
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
