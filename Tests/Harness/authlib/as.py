"""An Authlib 1.9.10 authorization server for Latchkey's JWT bearer tests (RFC 7523 §2.1 and §2.2).

Usage: as.py STATE_DIR KEYS_DIR [--tls CERT KEY]

Listens on 127.0.0.1, port 0 (the kernel picks it), and writes STATE_DIR/port once it accepts
connections; the issuer is https://localhost:PORT with --tls, else http://127.0.0.1:PORT.

What it serves: Authlib's own `AuthorizationServer` with its `JWTBearerGrant` (subclassed as
test-idp.md "Wave 4" says) and `ClientCredentialsGrant`, the client of the latter authenticated by
Authlib's `JWTBearerClientAssertion` (private_key_jwt), behind a small stdlib HTTP front; plus an
RFC 8414 / OpenID discovery document (Authlib serves none). The clients and their public keys
(KEYS_DIR/NAME.pub.pem, P-256, made by assertion.py) are fixed:

- `workload`: the JWT bearer grant, token lifetime 300 s; `workload-short`: the same, 3 s;
- `machine`: client credentials, authenticated by a client assertion signed with its key;
- `no-grant`: has a key but neither grant (Authlib answers `unauthorized_client`).

The audiences accepted are the issuer and its token endpoint. Subjects known: `system:serviceaccount:
kiosk:agent` and `spiffe://example.org/kiosk`; any other `sub` is `invalid_grant`. Scopes allowed:
`read write`; others are dropped silently (Authlib's `get_allowed_scope`). Authlib never checks
`jti` in the JWT bearer grant (a replay is 200), and issues no refresh token there.

Every request is logged as one JSON line in STATE_DIR/requests.log: {"t", "t_done", "method",
"path", "status", "params", "error", "assertion_jti", "client_assertion_jti"} (`params`: the form
of a POST; the two `jti` read from the assertions' payloads, unverified, so tests can tell which
file content was posted).
"""

import base64
import http.server
import json
import os
import secrets
import ssl
import sys
import threading
import time
import traceback
import urllib.parse

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # plain HTTP on loopback

from joserfc.jwk import ECKey  # noqa: E402

from authlib.oauth2 import AuthorizationServer  # noqa: E402
from authlib.oauth2.rfc6749 import ClientMixin, OAuth2Request  # noqa: E402
from authlib.oauth2.rfc6749.grants import ClientCredentialsGrant  # noqa: E402
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload, JsonRequest  # noqa: E402
from authlib.oauth2.rfc6750 import BearerTokenGenerator  # noqa: E402
from authlib.oauth2.rfc7523 import JWTBearerClientAssertion, JWTBearerGrant  # noqa: E402

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
SUBJECTS = {"system:serviceaccount:kiosk:agent", "spiffe://example.org/kiosk"}
ALLOWED_SCOPES = ["read", "write"]


class Client(ClientMixin):
    def __init__(self, client_id, grants, auth_method, lifetime, key):
        self.client_id, self.grants, self.auth_method, self.lifetime, self.key = (
            client_id, grants, auth_method, lifetime, key)

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        if not scope:
            return ""
        return " ".join(s for s in scope.split() if s in ALLOWED_SCOPES)

    def check_redirect_uri(self, redirect_uri):
        return False

    def check_client_secret(self, client_secret):
        return False

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.auth_method

    def check_response_type(self, response_type):
        return False

    def check_grant_type(self, grant_type):
        return grant_type in self.grants


def load_clients(keys_dir):
    def key(name):
        with open(os.path.join(keys_dir, name + ".pub.pem")) as f:
            return ECKey.import_key(f.read())
    return {
        "workload": Client("workload", [JWT_BEARER], "none", 300, key("workload")),
        "workload-short": Client("workload-short", [JWT_BEARER], "none", 3, key("workload")),
        "machine": Client("machine", ["client_credentials"], JWTBearerClientAssertion.CLIENT_AUTH_METHOD, 300, key("machine")),
        "no-grant": Client("no-grant", [], "none", 300, key("workload")),
    }


class Request(OAuth2Request):
    def __init__(self, method, uri, headers, form):
        super().__init__(method, uri, headers=headers)
        self._form = form
        self.payload = BasicOAuth2Payload(form)

    @property
    def args(self):
        return {}

    @property
    def form(self):
        return self._form


class Server(AuthorizationServer):
    def __init__(self, issuer, clients):
        # No scopes_supported: Authlib then refuses no scope, and get_allowed_scope drops unknown ones.
        super().__init__()
        self.issuer, self.clients = issuer, clients

        def expires(client, grant_type):
            return client.lifetime

        self.register_token_generator(
            "default",
            BearerTokenGenerator(access_token_generator=lambda **kw: secrets.token_urlsafe(32), expires_generator=expires))

    def query_client(self, client_id):
        return self.clients.get(client_id)

    def save_token(self, token, request):
        pass

    def send_signal(self, name, *args, **kwargs):
        pass

    def create_oauth2_request(self, request):
        return request

    def create_json_request(self, request):
        return JsonRequest(request.method, request.uri, request.headers)

    def handle_response(self, status, body, headers):
        return status, body, headers

    def audiences(self):
        return [self.issuer, self.issuer + "/token"]


def make_server(issuer, clients):
    server = Server(issuer, clients)

    class Grant(JWTBearerGrant):
        def resolve_issuer_client(self, issuer):
            return server.query_client(issuer)

        def resolve_client_public_key(self, client):
            return client.key

        def authenticate_user(self, subject):
            return subject if subject in SUBJECTS else None

        def has_granted_permission(self, client, user):
            return True

        def get_audiences(self):
            return server.audiences()

    class Assertion(JWTBearerClientAssertion):
        def get_audiences(self):
            return server.audiences()

        def resolve_client_public_key(self, client):
            return client.key

        def validate_jti(self, claims, jti):
            return True  # like the grant: replays are not tracked here

    class Credentials(ClientCredentialsGrant):
        TOKEN_ENDPOINT_AUTH_METHODS = [JWTBearerClientAssertion.CLIENT_AUTH_METHOD]

    server.register_grant(Grant)
    server.register_grant(Credentials)
    server.register_client_auth_method(Assertion.CLIENT_AUTH_METHOD, Assertion())
    return server


def jti(token):
    try:
        payload = token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get("jti")
    except Exception:
        return None


def metadata(issuer):
    return {
        "issuer": issuer,
        "token_endpoint": issuer + "/token",
        "grant_types_supported": [JWT_BEARER, "client_credentials"],
        "token_endpoint_auth_methods_supported": ["none", "private_key_jwt"],
        "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
        "scopes_supported": ALLOWED_SCOPES,
        "response_types_supported": [],
    }


def main():
    state, keys_dir = sys.argv[1], sys.argv[2]
    tls = None
    if len(sys.argv) > 3 and sys.argv[3] == "--tls":
        tls = (sys.argv[4], sys.argv[5])
    clients = load_clients(keys_dir)
    ctx = {}
    log_lock = threading.Lock()
    log_path = os.path.join(state, "requests.log")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, body, headers=()):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            sent = set()
            for name, value in headers:
                self.send_header(name, value)
                sent.add(name.lower())
            if "content-type" not in sent:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return status, body

        def record(self, t, status, params, body):
            error = body.get("error") if isinstance(body, dict) else None
            entry = {
                "t": t, "t_done": time.time(), "method": self.command, "path": self.path.split("?")[0],
                "status": status, "params": params, "error": error,
                "error_description": body.get("error_description") if isinstance(body, dict) else None,
                "assertion_jti": jti(params.get("assertion", "")),
                "client_assertion_jti": jti(params.get("client_assertion", "")),
            }
            with log_lock, open(log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")

        def do_GET(self):
            t = time.time()
            path = self.path.split("?")[0]
            if path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
                status, body = self.reply(200, metadata(ctx["issuer"]))
            else:
                status, body = self.reply(404, {"error": "not_found"})
            self.record(t, status, {}, body)

        def do_POST(self):
            t = time.time()
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            params = dict(urllib.parse.parse_qsl(raw, keep_blank_values=True))
            if self.path.split("?")[0] != "/token":
                status, body = self.reply(404, {"error": "not_found"})
                self.record(t, status, params, body)
                return
            try:
                request = Request("POST", ctx["issuer"] + self.path, dict(self.headers.items()), params)
                status, body, headers = ctx["server"].create_token_response(request)
                if isinstance(body, str):
                    body = json.loads(body)
            except Exception:
                traceback.print_exc()
                status, body, headers = 500, {"error": "server_error"}, []
            self.reply(status, body, [(k, v) for k, v in headers if k.lower() != "content-length"])
            self.record(t, status, params, body)

    # Port 0: the kernel picks the port, known only once bound; the issuer follows from it.
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = httpd.server_address[1]
    ctx["issuer"] = f"https://localhost:{port}" if tls else f"http://127.0.0.1:{port}"
    ctx["server"] = make_server(ctx["issuer"], clients)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls[0], tls[1])
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    with open(os.path.join(state, "port.tmp"), "w") as f:
        f.write(str(port))
    os.rename(os.path.join(state, "port.tmp"), os.path.join(state, "port"))
    print(f"authlib AS on {ctx['issuer']}", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
