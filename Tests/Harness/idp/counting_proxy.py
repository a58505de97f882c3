#!/usr/bin/env python3
"""A counting reverse proxy (standard library only) in front of a test server.

Every request is forwarded to --upstream unchanged, and one JSON line is appended to --log:
  {"t": <request received, epoch s>, "t_done": <response sent>, "method", "path", "query",
   "params": {form/JSON body fields}, "status", "error": <OAuth error code or null>,
   "client": <remote port>, "auth_scheme": <first word of Authorization, or null>,
   "dpop": <the claims of the DPoP proof (RFC 9449), or null>, "dpop_nonce": <DPoP-Nonce answered>}
Secret-bearing fields (tokens, codes, verifiers, secrets, passwords) are logged as
"sha256:<first 16 hex>" so tests can tell tokens apart without a secret ever reaching a log.

This is how tests assert on the server side: exactly one refresh under contention, no poll
earlier than the interval (Glewlwyd itself does not log polls). It can also make the real server
answer `slow_down` once (see _provoke_slow_down), so the client's reaction is tested against it.

Requests reach the upstream one at a time (the proxy still accepts them side by side): a
refresh answered 500 in one CI run (stop 43; Glewlwyd logged "serialize_access_token - Error
executing j_query (2)" after it had already spent the refresh token, so the session was lost at
the server). Glewlwyd 2.7.5 shares one SQLite connection between its threads, and suites running
side by side were its only concurrency; a test server that serves one request at a time still
answers each in milliseconds, and no test needs Glewlwyd to work on two at once (they wait on
each other in latchkey's file lock, not at the server).

With --date-offset SECONDS the answers' `Date` header says a clock that far ahead (negative:
behind), to play a provider whose clock differs from the device's (issue 27.2). --listen 0 picks a
free port; the first line printed names it.

usage: counting_proxy.py --listen PORT --upstream http://127.0.0.1:PORT --log FILE [--date-offset S]
"""
import argparse
import base64
import email.utils
import hashlib
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET_FIELDS = {"refresh_token", "device_code", "code", "code_verifier", "client_secret", "password",
                 "token", "access_token", "id_token", "client_assertion"}
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
              "upgrade", "content-length"}


def redact(params: dict) -> dict:
    return {k: ("sha256:" + hashlib.sha256(str(v).encode()).hexdigest()[:16] if k in SECRET_FIELDS else v)
            for k, v in params.items()}


def body_params(content_type: str, body: bytes) -> dict:
    try:
        if content_type.startswith("application/x-www-form-urlencoded"):
            return {k: v[0] for k, v in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()}
        if content_type.startswith("application/json") and body:
            value = json.loads(body)
            return value if isinstance(value, dict) else {}
    except (ValueError, UnicodeDecodeError):
        pass
    return {}


def oauth_error(body: bytes):
    """The OAuth `error` code of a small JSON error body (pending vs slow_down share HTTP 400)."""
    if not body or len(body) > 4096:
        return None
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    return value.get("error") if isinstance(value, dict) else None


def dpop_claims(proof):
    """The payload of a DPoP proof JWT (claims only: no signature, nothing secret), or None."""
    if not proof:
        return None
    try:
        payload = proof.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return {"unparsable": True}


# One request at a time to the upstream (see the module's docstring).
UPSTREAM = threading.Lock()


def make_handler(upstream: urllib.parse.SplitResult, log_path: str, lock: threading.Lock, date_offset: float = 0):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet: the JSON log is the record
            pass

        def _provoke_slow_down(self, body: bytes, headers: dict) -> None:
            """With the marker file <log>.provoke-slow-down holding a client_id, the first device
            poll of that client is sent upstream twice: an injected copy first, then the client's
            own within the same wall-clock second. Glewlwyd counts whole seconds since the last
            poll, so the client's poll earns a real `slow_down` from the real server."""
            marker = log_path + ".provoke-slow-down"
            params = body_params(self.headers.get("Content-Type", ""), body)
            if params.get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code":
                return
            try:
                with open(marker) as f:
                    wanted = f.read().strip()
            except OSError:
                return
            if wanted != params.get("client_id"):
                return
            try:
                os.unlink(marker)
            except OSError:
                return  # another request took it
            frac = time.time() % 1
            time.sleep(1 - frac + 0.02)  # start of a second: both polls land in it
            t0 = time.time()
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
            try:
                with UPSTREAM:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                    data, status = resp.read(), resp.status
            finally:
                conn.close()
            entry = {"t": round(t0, 6), "t_done": round(time.time(), 6), "method": self.command,
                     "path": self.path.partition("?")[0], "query": {}, "params": redact(params),
                     "status": status, "error": oauth_error(data), "client": 0, "injected": True}
            with lock, open(log_path, "a") as out:
                out.write(json.dumps(entry) + "\n")

        def _forward(self):
            t0 = time.time()
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            if self.command == "POST" and body:
                self._provoke_slow_down(body, headers)
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
            try:
                with UPSTREAM:
                    conn.request(self.command, self.path, body=body if length else None, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    status, resp_headers = resp.status, resp.getheaders()
            except OSError as e:
                status, resp_headers, data = 502, [("Content-Type", "text/plain")], f"proxy: {e}".encode()
            finally:
                conn.close()
            # Log first, then answer: a test reading the log once the client has its answer finds it.
            path, _, query = self.path.partition("?")
            entry = {"t": round(t0, 6), "t_done": round(time.time(), 6), "method": self.command, "path": path,
                     "query": redact({k: v[0] for k, v in urllib.parse.parse_qs(query).items()}),
                     "params": redact(body_params(self.headers.get("Content-Type", ""), body)),
                     "status": status, "error": oauth_error(data), "client": self.client_address[1],
                     "auth_scheme": (self.headers.get("Authorization") or "").partition(" ")[0] or None,
                     "dpop": dpop_claims(self.headers.get("DPoP")),
                     "dpop_nonce": dict((k.lower(), v) for k, v in resp_headers).get("dpop-nonce")}
            with lock, open(log_path, "a") as out:
                out.write(json.dumps(entry) + "\n")
            self.send_response_only(status)
            if date_offset:
                resp_headers = [(k, v) for k, v in resp_headers if k.lower() != "date"]
                resp_headers.append(("Date", email.utils.formatdate(time.time() + date_offset, usegmt=True)))
            for k, v in resp_headers:
                if k.lower() not in HOP_BY_HOP:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            self.wfile.flush()

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = _forward

    return Handler


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", type=int, required=True)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--date-offset", type=float, default=0,
                    help="seconds the answers' Date header is moved ahead of the local clock")
    a = ap.parse_args()
    open(a.log, "a").close()
    server = ThreadingHTTPServer(("127.0.0.1", a.listen),
                                 make_handler(urllib.parse.urlsplit(a.upstream), a.log, threading.Lock(), a.date_offset))
    server.daemon_threads = True
    print(f"counting proxy on 127.0.0.1:{server.server_address[1]} -> {a.upstream}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
