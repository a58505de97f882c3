"""A protected resource built from the `mcp` Python SDK 2.3.0's auth pieces, for Latchkey's RFC 9728
tests (issue 35): `fetch` that finds its issuer from the resource itself.

Usage: resource.py STATE_DIR ISSUER [--ca-file CA] [--tls CERT KEY]

Listens on 127.0.0.1, port 0 (the kernel picks it), and writes STATE_DIR/port and
STATE_DIR/resource (its resource identifier) once it accepts connections. The identifier is
http://127.0.0.1:PORT/api, or https://localhost:PORT/api with --tls.

What it serves, all from the SDK as its MCP servers use it (mcpserver/server.py wires the same):
- `create_protected_resource_routes`: GET /.well-known/oauth-protected-resource/api, the RFC 9728
  metadata naming ISSUER as its one authorization server (written as given: the SDK's pydantic
  model keeps a trailing `/` the operator wrote, and adds one to a bare origin), scopes_supported
  ["profile"], resource_name "latchkey-mcp-test";
- `AuthenticationMiddleware` + `BearerAuthBackend(verifier, resource_server_url=...)`: a token is
  accepted only when its `aud` is this resource (RFC 8707, `validate_token_resource`);
- `RequireAuthMiddleware(["profile"], resource_metadata_url)` on /api and below: 401
  `Bearer error="invalid_token", ..., resource_metadata="<metadata URL>"` without a usable token,
  403 `insufficient_scope` without `profile`.
The verifier is ours (the SDK leaves it to the server): it checks the access token, a JWT signed
by ISSUER (Glewlwyd's at+jwt), against the JWKS named by ISSUER's discovery document, with `iss`
and `exp`; `aud` becomes `AccessToken.resource`.

Every request is logged as one JSON line in STATE_DIR/requests.log: {"t", "method", "path",
"query", "status", "authorization"} where `authorization` is the scheme only ("Bearer", or null):
the test asks whether a token was sent, never sees it.
"""

import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.request

import jwt
import uvicorn
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes

SCOPES = ["profile"]


class IssuerTokenVerifier:
    """The SDK's TokenVerifier protocol: a JWT access token signed by the issuer's current keys."""

    def __init__(self, issuer, resource, ca_file):
        self.issuer = issuer.rstrip("/")
        self.resource = resource
        self.context = ssl.create_default_context(cafile=ca_file) if ca_file else None
        self.keys = None
        self.lock = threading.Lock()

    def _get(self, url):
        with urllib.request.urlopen(url, timeout=10, context=self.context) as r:
            return json.loads(r.read())

    def _key_set(self, refresh=False):
        with self.lock:
            if self.keys is None or refresh:
                config = self._get(self.issuer + "/.well-known/openid-configuration")
                self.keys = jwt.PyJWKSet.from_dict(self._get(config["jwks_uri"]))
            return self.keys

    def _key(self, kid):
        for refresh in (False, True):  # a kid not seen yet: the issuer rotated, read its keys again
            for key in self._key_set(refresh).keys:
                if kid is None or key.key_id == kid:
                    return key
        return None

    async def verify_token(self, token):
        try:
            header = jwt.get_unverified_header(token)
            key = self._key(header.get("kid"))
            if key is None:
                return None
            claims = jwt.decode(token, key, algorithms=["RS256", "PS256", "ES256"], issuer=self.issuer,
                                options={"verify_aud": False, "require": ["exp", "iss"]})
        except Exception:
            return None
        aud = claims.get("aud")
        audiences = aud if isinstance(aud, list) else [aud] if aud else []
        resource = self.resource if self.resource in audiences else (audiences[0] if audiences else None)
        return AccessToken(token=token, client_id=str(claims.get("client_id") or claims.get("azp") or ""),
                           scopes=str(claims.get("scope") or "").split(), expires_at=int(claims["exp"]),
                           resource=resource, subject=claims.get("sub"), claims=claims)


async def api(scope, receive, send):
    """The protected answer: who the SDK's middleware let in, for what."""
    user = scope["user"]
    body = {"resource": "mcp", "subject": user.access_token.subject, "client_id": user.access_token.client_id,
            "audience": user.access_token.resource, "scopes": user.scopes}
    await JSONResponse(body)(scope, receive, send)


class RequestLog:
    """ASGI middleware: one JSON line per request, written when its status is known."""

    def __init__(self, app, path):
        self.app, self.path, self.lock = app, path, threading.Lock()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started, status = time.time(), [None]

        async def sending(message):
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            authorization = headers.get("authorization")
            entry = {"t": started, "method": scope["method"], "path": scope["path"],
                     "query": scope.get("query_string", b"").decode("latin-1"), "status": status[0],
                     "authorization": authorization.split(" ", 1)[0] if authorization else None}
            with self.lock, open(self.path, "a") as f:
                f.write(json.dumps(entry) + "\n")


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit("usage: resource.py STATE_DIR ISSUER [--ca-file CA] [--tls CERT KEY]")
    state, issuer = os.path.abspath(args[0]), args[1]
    ca_file = args[args.index("--ca-file") + 1] if "--ca-file" in args else None
    tls = args[args.index("--tls") + 1:args.index("--tls") + 3] if "--tls" in args else None
    os.makedirs(state, exist_ok=True)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    resource = f"https://localhost:{port}/api" if tls else f"http://127.0.0.1:{port}/api"
    resource_url = AnyHttpUrl(resource)
    metadata_url = build_resource_metadata_url(resource_url)

    verifier = IssuerTokenVerifier(issuer, resource, ca_file)
    protected = RequireAuthMiddleware(api, SCOPES, metadata_url)
    routes = create_protected_resource_routes(resource_url=resource_url, authorization_servers=[AnyHttpUrl(issuer)],
                                              scopes_supported=SCOPES, resource_name="latchkey-mcp-test")
    routes += [Route("/api", endpoint=protected), Mount("/api", app=protected)]
    app = Starlette(routes=routes, middleware=[
        Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier, resource_server_url=resource_url))])

    config = uvicorn.Config(RequestLog(app, os.path.join(state, "requests.log")), log_level="warning",
                            ssl_certfile=tls[0] if tls else None, ssl_keyfile=tls[1] if tls else None)
    server = uvicorn.Server(config)

    def report_when_ready():
        deadline = time.time() + 30
        while not server.started and time.time() < deadline:
            time.sleep(0.02)
        for name, value in (("resource", resource), ("port", str(port))):  # `port` last: the ready signal
            with open(os.path.join(state, name + ".tmp"), "w") as f:
                f.write(value)
            os.rename(os.path.join(state, name + ".tmp"), os.path.join(state, name))

    threading.Thread(target=report_when_ready, daemon=True).start()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
