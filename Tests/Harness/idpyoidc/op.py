"""An idpyoidc 5.0.0 OpenID Provider for Latchkey's PAR (RFC 9126), token-exchange and step-up tests.

Usage: op.py STATE_DIR [--tls CERT KEY]

Listens on 127.0.0.1, port 0 (the kernel picks it), and writes STATE_DIR/port once it accepts
connections; the issuer is https://localhost:PORT with --tls, else http://127.0.0.1:PORT.

What it serves (idpyoidc's own endpoint classes, behind a small stdlib HTTP front, as idpyoidc's
example/flask_op does with Flask): discovery, authorization, pushed_authorization, token, userinfo
and the JWKS. One public client, `latchkey-par` (no client authentication, PKCE S256 required,
redirect http://127.0.0.1:PORT/callback: any loopback port, RFC 8252 §7.3, the one rule the front
adds to idpyoidc's exact match). The user is scripted: idpyoidc's NoAuthn
signs in `diana` at once, so the authorization endpoint answers with the redirect carrying the code
(a browser is a plain GET that does not follow the redirect). Two such methods, acr `pwd` (the
default) and `mfa`, for the step-up tests (stepup_resource.py is their resource); the front passes
the browser's cookies to the authorization endpoint and sets idpyoidc's, so a browser with a
cookie jar keeps a single sign-on session.

Every request is logged as one JSON line in STATE_DIR/requests.log: {"t", "t_done", "method",
"path", "status", "params", "location"} (`params`: the form of a POST, the query of a GET; `t`
when it arrived, `t_done` when answered, Unix seconds).
"""

import http.cookies
import http.server
import json
import os
import re
import secrets
import socket
import ssl
import sys
import threading
import time
import traceback
import urllib.parse

from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.message.oidc import AccessTokenRequest
from idpyoidc.server import Server
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.oidc.token import Token

CLIENT_ID = "latchkey-par"
# A confidential client for the token-exchange tests (client_secret_basic or _post); its secret
# is in STATE_DIR/exchange-client-secret (mode 0600), read by the tests, never on a command line.
EXCHANGE_CLIENT_ID = "latchkey-exchange"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
# RFC 8693 policy: the audiences and resources an exchange may ask for (plain names: a URL as
# audience is fine, but introspection only answers clients named in `aud`).
EXCHANGE_AUDIENCES = ["billing-api", "reports-api"]
EXCHANGE_RESOURCES = ["https://billing.example/api"]
REDIRECT_URI = "http://127.0.0.1:53682/callback"
LOOPBACK = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}/callback")
USER = "diana"
# The two authentication context classes (OpenID Connect Core §2 `acr`): names, as RFC 9470's
# examples use; idpyoidc compares them as opaque strings.
ACR_PASSWORD = "pwd"
ACR_MFA = "mfa"


def configuration(issuer, state):
    return {
        "issuer": issuer,
        "httpc_params": {"verify": False},
        "keys": {
            "private_path": os.path.join(state, "private", "jwks.json"),
            "public_path": os.path.join(state, "jwks.json"),
            "key_defs": [{"type": "RSA", "use": ["sig"]}, {"type": "EC", "crv": "P-256", "use": ["sig"]}],
            "uri_path": "jwks.json",
            "read_only": False,
        },
        "token_handler_args": {
            "jwks_def": {
                "private_path": os.path.join(state, "private", "token_jwks.json"),
                "read_only": False,
                "key_defs": [
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "code"},
                    {"type": "oct", "bytes": 24, "use": ["enc"], "kid": "refresh"},
                ],
            },
            "code": {"lifetime": 600},
            # `base_claims` acr: the access token (a JWT signed with the OP's keys) carries the acr
            # of the authentication it was issued for, which the step-up resource checks.
            "token": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                      "kwargs": {"lifetime": 3600, "base_claims": {"acr": None}}},
            "refresh": {"class": "idpyoidc.server.token.jwt_token.JWTToken", "kwargs": {"lifetime": 86400}},
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken", "kwargs": {}},
        },
        "add_on": {
            "pkce": {
                "function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                "kwargs": {"essential": True, "code_challenge_method": "S256"},
            }
        },
        "authz": {
            "class": "idpyoidc.server.authz.AuthzHandling",
            "kwargs": {
                "grant_config": {
                    "usage_rules": {
                        "authorization_code": {"supports_minting": ["access_token", "refresh_token", "id_token"],
                                               "max_usage": 1},
                        "access_token": {"supports_minting": ["access_token", "refresh_token", "id_token"],
                                         "expires_in": 3600},
                        "refresh_token": {"supports_minting": ["access_token", "refresh_token", "id_token"]},
                    },
                    "expires_in": 43200,
                }
            },
        },
        # Two methods, so that acr_values chooses (RFC 9470 step-up tests): both sign in `diana`
        # at once. The first is idpyoidc's default when a request names no acr.
        "authentication": {
            "pwd": {"acr": ACR_PASSWORD, "class": "idpyoidc.server.user_authn.user.NoAuthn", "kwargs": {"user": USER}},
            "mfa": {"acr": ACR_MFA, "class": "idpyoidc.server.user_authn.user.NoAuthn", "kwargs": {"user": USER}},
        },
        "userinfo": {
            "class": "idpyoidc.server.user_info.UserInfo",
            "kwargs": {"db": {USER: {"sub": USER, "name": "Diana Krall", "email": "diana@example.org",
                                     "email_verified": True}}},
        },
        "cookie_handler": {
            "class": "idpyoidc.server.cookie_handler.CookieHandler",
            "kwargs": {
                "keys": {
                    "private_path": os.path.join(state, "private", "cookie_jwks.json"),
                    "key_defs": [{"type": "OCT", "use": ["enc"], "kid": "enc"},
                                 {"type": "OCT", "use": ["sig"], "kid": "sig"}],
                    "read_only": False,
                },
                "name": {"session": "oidc_op", "register": "oidc_op_rp", "session_management": "sman"},
            },
        },
        "preference": {
            "subject_types_supported": ["public"],
            "grant_types_supported": ["authorization_code", "refresh_token", TOKEN_EXCHANGE],
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "code_challenge_methods_supported": ["S256"],
            "acr_values_supported": [ACR_PASSWORD, ACR_MFA],
        },
        "endpoint": {
            "provider_config": {
                "path": ".well-known/openid-configuration",
                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                "kwargs": {"client_authn_method": None},
            },
            "authorization": {
                "path": "authorization",
                "class": "idpyoidc.server.oidc.authorization.Authorization",
                "kwargs": {
                    "client_authn_method": None,
                    "request_uri_parameter_supported": True,
                    "response_types_supported": ["code"],
                    "response_modes_supported": ["query"],
                },
            },
            "pushed_authorization": {
                "path": "par",
                "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
                "kwargs": {"client_authn_method": ["none"], "ttl": 90},
            },
            "token": {
                "path": "token",
                "class": "idpyoidc.server.oidc.token.Token",
                "kwargs": {
                    "client_authn_method": ["none", "client_secret_basic", "client_secret_post"],
                    "grant_types_helpers": {
                        "authorization_code": {"class": "idpyoidc.server.oidc.token_helper.access_token.AccessTokenHelper"},
                        "refresh_token": {"class": "idpyoidc.server.oidc.token_helper.refresh_token.RefreshTokenHelper"},
                        TOKEN_EXCHANGE: {
                            "class": "idpyoidc.server.oidc.token_helper.token_exchange.TokenExchangeHelper",
                            "kwargs": {
                                "requested_token_types_supported": [
                                    "urn:ietf:params:oauth:token-type:access_token",
                                    "urn:ietf:params:oauth:token-type:refresh_token",
                                    "urn:ietf:params:oauth:token-type:id_token",
                                ],
                                "default_requested_token_type": "urn:ietf:params:oauth:token-type:access_token",
                                "policy": {"": {
                                    "function": "idpyoidc.server.oauth2.token_helper.validate_token_exchange_policy",
                                    "kwargs": {"audience": EXCHANGE_AUDIENCES, "resource": EXCHANGE_RESOURCES},
                                }},
                            },
                        },
                    },
                },
            },
            "userinfo": {
                "path": "userinfo",
                "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                "kwargs": {},
            },
        },
        "session_params": {"encrypter": {"kwargs": {"keys": {"key_defs": [
            {"type": "OCT", "use": ["enc"], "kid": "password"},
            {"type": "OCT", "use": ["enc"], "kid": "salt"}]}, "iterations": 1}}},
        "template_dir": "templates",
    }


CLIENTS = {
    CLIENT_ID: {
        "client_id": CLIENT_ID,
        "client_salt": "salted",
        "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "none",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", TOKEN_EXCHANGE],
        "allowed_scopes": ["openid", "profile", "email", "offline_access"],
        "id_token_signed_response_alg": "RS256",
    },
    EXCHANGE_CLIENT_ID: {
        "client_id": EXCHANGE_CLIENT_ID,
        "client_salt": "salted",
        "client_secret": None,  # made at start-up (main)
        "client_secret_expires_at": 0,
        "redirect_uris": [REDIRECT_URI],
        "token_endpoint_auth_method": "client_secret_basic",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", TOKEN_EXCHANGE],
        "allowed_scopes": ["openid", "profile", "email", "offline_access"],
        "id_token_signed_response_alg": "RS256",
    },
}


class Front(http.server.BaseHTTPRequestHandler):
    server_version = "idpyoidc-test-op"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def _log(self, params, status, location=None):
        entry = {"t": self.started, "t_done": time.time(), "method": self.command,
                 "path": urllib.parse.urlsplit(self.path).path, "status": status, "params": params, "location": location}
        with self.server.log_lock:
            with open(self.server.log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def _send(self, status, body, content_type="application/json", headers=()):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if not any(name.lower() == "cache-control" for name, _ in headers):
            self.send_header("Cache-Control", "no-store")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._handle()

    def do_POST(self):
        self._handle()

    def _handle(self):
        self.started = time.time()
        parts = urllib.parse.urlsplit(self.path)
        path = parts.path.strip("/")
        op = self.server.op
        if self.command == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
        else:
            raw = parts.query
        params = dict(urllib.parse.parse_qsl(raw, keep_blank_values=True))
        if path == "jwks.json":
            with open(self.server.jwks_path) as f:
                body = f.read()
            self._log(params, 200)
            return self._send(200, body)
        names = {".well-known/openid-configuration": "provider_config", "authorization": "authorization",
                 "par": "pushed_authorization", "token": "token", "userinfo": "userinfo"}
        if path not in names:
            self._log(params, 404)
            return self._send(404, b"not found", "text/plain")
        self._allow_loopback_port(params)
        endpoint = op.get_endpoint(names[path])
        http_info = {
            "headers": {k.lower(): v for k, v in self.headers.items() if k.lower() not in ("cookie", "user-agent")},
            "method": self.command,
            "url": self.server.issuer + self.path,
        }
        if path == "authorization":
            # idpyoidc's single sign-on: a browser that keeps the session cookie of an earlier
            # sign-in is not authenticated again (curl without a cookie jar never sends one).
            http_info["cookie"] = self._cookies()
        try:
            request = endpoint.parse_request(raw if self.command == "POST" else params, http_info=http_info)
        except Exception as error:
            return self._error(params, 400, "invalid_request", str(error))
        if isinstance(request, ResponseMessage) and "error" in request:
            self._log(params, 400)
            return self._send(400, request.to_json())
        try:
            if isinstance(endpoint, Token):
                args = endpoint.process_request(AccessTokenRequest(**request), http_info=http_info)
            else:
                args = endpoint.process_request(request, http_info=http_info)
        except Exception as error:
            traceback.print_exc()
            return self._error(params, 400, "invalid_request", str(error))
        if isinstance(args, ResponseMessage) and "error" in args:
            self._log(params, 400)
            return self._send(400, args.to_json())
        if "http_response" in args:
            # The pushed-authorization answer (RFC 9126 §2.2: 201 Created).
            status = 201 if path == "par" else 200
            self._log(params, status)
            return self._send(status, json.dumps(args["http_response"]))
        info = endpoint.do_response(request=request, **args)
        placement = info.get("response_placement", endpoint.response_placement)
        headers = [(k, v) for k, v in info.get("http_headers", []) if k.lower() not in ("content-type",)]
        for cookie in info.get("cookie", []):
            headers.append(("Set-Cookie", f"{cookie['name']}={cookie['value']}; Path=/; HttpOnly"))
        if placement == "url":
            self._log(params, 302, info["response"])
            return self._send(302, b"", "text/plain", headers + [("Location", info["response"])])
        status = info.get("response_code", 200)
        self._log(params, status)
        return self._send(status, info["response"], headers=headers)

    def _cookies(self):
        """The request's cookies as idpyoidc's endpoints take them: [{"name", "value"}]."""
        jar = http.cookies.SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie") or "")
        except http.cookies.CookieError:
            return []
        return [{"name": name, "value": morsel.value} for name, morsel in jar.items()]

    def _allow_loopback_port(self, params):
        """RFC 8252 §7.3: any port on a loopback redirect URI; idpyoidc matches the registered
        ones exactly, so the port asked for is registered first. Nothing else is relaxed."""
        uri = params.get("redirect_uri", "")
        client = params.get("client_id")
        if client in CLIENTS and LOOPBACK.fullmatch(uri):
            uris = self.server.op.context.cdb[client]["redirect_uris"]
            if uri not in uris:
                uris.append(uri)

    def _error(self, params, status, code, description):
        self._log(params, status)
        self._send(status, json.dumps({"error": code, "error_description": description}))


class ThreadingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(self.server_address)
        self.server_address = self.socket.getsockname()


def main():
    state = os.path.abspath(sys.argv[1])
    tls = sys.argv[2:5] if len(sys.argv) >= 5 and sys.argv[2] == "--tls" else None
    os.makedirs(os.path.join(state, "private"), mode=0o700, exist_ok=True)
    os.makedirs(os.path.join(state, "templates"), exist_ok=True)
    front = ThreadingServer(("127.0.0.1", 0), Front)
    port = front.server_address[1]
    issuer = f"https://localhost:{port}" if tls else f"http://127.0.0.1:{port}"
    os.chdir(state)
    op = Server(OPConfiguration(conf=configuration(issuer, state), base_path=state), cwd=state)
    context = op.context
    context.cdb = json.loads(json.dumps(CLIENTS))
    secret = secrets.token_urlsafe(24)
    context.cdb[EXCHANGE_CLIENT_ID]["client_secret"] = secret
    fd = os.open(os.path.join(state, "exchange-client-secret"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret + "\n")
    front.op = op
    front.issuer = issuer
    front.jwks_path = os.path.join(state, "jwks.json")
    front.log_path = os.path.join(state, "requests.log")
    front.log_lock = threading.Lock()
    if tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(tls[1], tls[2])
        front.socket = ctx.wrap_socket(front.socket, server_side=True)
    with open(os.path.join(state, "port.tmp"), "w") as f:
        f.write(str(port))
    os.rename(os.path.join(state, "port.tmp"), os.path.join(state, "port"))
    front.serve_forever()


if __name__ == "__main__":
    main()
