#!/usr/bin/env python3
"""A git smart-HTTP server on loopback, over TLS, that accepts only a live OAuth access token.

`git http-backend` (git's own smart-HTTP CGI) does the git side; this script is the web server in
front of it, as a forge would be. Every request must carry HTTP Basic credentials whose password is
an access token the IdP still accepts: the token is checked at the IdP that issued it (a GET of its
`--userinfo` endpoint with `Authorization: Bearer <password>`; 200 means live), on every request,
with no cache. Without credentials the answer is `401 WWW-Authenticate: Basic`, which is what makes
git ask its credential helpers. Standard library only.

usage: git_http_server.py --root DIR --userinfo URL --cert PEM --key PEM [--port 0] [--log FILE]
                          [--ca-file PEM] [--revoked FILE]
Prints `port N` once it listens. `--log` gets one JSON line per request: method, path, user,
`password_sha256` (never the token), the IdP's status for the token, and the answered status.
`--revoked FILE` lists SHA-256 hex digests of tokens to refuse as a forge would refuse a token the
IdP revoked a moment ago (git then `reject`s the credential, which makes the helper `erase` it).
The process exits when its stdin closes (so a test that dies never leaves it behind).
"""
import argparse
import base64
import hashlib
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

BACKEND = "/usr/lib/git-core/git-http-backend"


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        context = ssl.create_default_context(cafile=args.ca_file) if args.ca_file else None
        self.opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context)) if context \
            else urllib.request.build_opener()

    def token_status(self, token: str) -> int:
        """The IdP's status for a userinfo request with `token` (200: live)."""
        request = urllib.request.Request(self.args.userinfo, headers={"Authorization": "Bearer " + token})
        try:
            with self.opener.open(request, timeout=10) as answer:
                return answer.status
        except urllib.error.HTTPError as e:
            return e.code
        except OSError:
            return 0

    def revoked(self) -> set:
        try:
            with open(self.args.revoked or "/nonexistent") as f:
                return {line.strip() for line in f if line.strip()}
        except OSError:
            return set()

    def log(self, entry: dict) -> None:
        if not self.args.log:
            return
        with self.lock, open(self.args.log, "a") as out:
            out.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: State = None

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        self._serve()

    def do_POST(self):
        self._serve()

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _answer(self, status: int, body: bytes, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _serve(self):
        body = self._body()
        path, _, query = self.path.partition("?")
        entry = {"t": round(time.time(), 6), "method": self.command, "path": path, "query": query,
                 "user": None, "password_sha256": None, "idp_status": None}
        scheme, _, encoded = (self.headers.get("Authorization") or "").partition(" ")
        user = password = None
        if scheme.lower() == "basic":
            try:
                user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                user = password = None
        if password:
            entry["user"] = user
            entry["password_sha256"] = hashlib.sha256(password.encode()).hexdigest()
            if entry["password_sha256"] in self.state.revoked():
                entry["idp_status"] = "revoked"
            else:
                entry["idp_status"] = self.state.token_status(password)
        if entry["idp_status"] != 200:
            entry["status"] = 401
            self.state.log(entry)
            return self._answer(401, b"a live access token is needed\n",
                                [("WWW-Authenticate", 'Basic realm="latchkey test forge"'), ("Content-Type", "text/plain")])

        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.state.args.root, "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": user or "", "REMOTE_ADDR": self.client_address[0],
            "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
        }
        for header, variable in [("Content-Encoding", "HTTP_CONTENT_ENCODING"), ("Git-Protocol", "GIT_PROTOCOL")]:
            if self.headers.get(header):
                env[variable] = self.headers[header]
        cgi = subprocess.run([BACKEND], input=body, env=env, capture_output=True, timeout=60)
        head, _, payload = cgi.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = cgi.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers.append((name.strip(), value.strip()))
        entry["status"] = status
        if cgi.returncode != 0 or cgi.stderr:
            entry["backend_stderr"] = cgi.stderr.decode(errors="replace")[:500]
        self.state.log(entry)
        self._answer(status, payload, headers)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", required=True, help="folder of bare repositories (GIT_PROJECT_ROOT)")
    ap.add_argument("--userinfo", required=True, help="the IdP's userinfo endpoint that checks a token")
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--ca-file", help="CA bundle for reaching an https userinfo endpoint")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--revoked")
    args = ap.parse_args()
    Handler.state = State(args)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("port %d" % server.server_address[1], flush=True)
    try:
        sys.stdin.read()  # until the parent closes it (or dies)
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
