#!/usr/bin/env python3
"""The soak's scripted provider: what Glewlwyd cannot do on demand.

On 127.0.0.1 only, port 0 (the ports are printed on stdout when ready, see below); https with --tls.
- Device grant, auto-approved at the first poll; one refresh-token *family* per grant.
- Access tokens live a random 10-30 s (--at-ttl-min/--at-ttl-max, from --seed).
- Refresh tokens rotate on every use. A spent refresh token presented again is a *reuse*: within
  --grace seconds of its rotation it is accepted (the family goes on from the new answer),
  otherwise the whole family is revoked (RFC 9700 §4.14.2): every refresh and access token of it.
- DPoP (RFC 9449) for clients that send a proof: the grant is bound to the proof's key; the
  proof checks are those of Tests/Harness/scripted_idp.py (imported, not copied).
- /resource: a protected resource (Bearer or DPoP with ath); faults never touch it.
- Fault switches, set by the soak driver with POST /_control {"fault": NAME, "seconds": S} or
  {"event": "jwks-rotate"} / {"clock_offset": S}: "503" (no Retry-After), "503-retry-after"
  (Retry-After: 1), "reset" (TCP RST, nothing processed), "stall" (no answer for --stall
  seconds, then the connection closed, nothing processed), "slow" (2-4 s before an answer that
  is then processed normally). Faults hit discovery, JWKS, device and token endpoints.
  {"restart": S}: the provider restarts gracefully: its listener closes for S seconds (connections
  refused), requests in progress finish, idle connections answer nothing, the state is kept.
  {"event": "cert-swap"} (with --tls): new connections get the other of two certificates of the
  same CA, as after a renewal.
- The port is printed as "PORT <n> CONTROL <m>": m is a plain-HTTP port for the driver's own
  /_ requests, never faulted nor restarted.
- GET /_stats: per family (client_id = the device) refreshes, reuses (in grace or not), the
  revocation and, for a revoking reuse, when the request that rotated the reused token arrived,
  when it was rotated and whether its
  successor was ever presented; GET /_token?h=<sha256 hex of an access token>: issued_at, ttl.
Defects for showing that the soak finds things (--defect): "stale-refresh-answer": one refresh
answer in 5 carries the refresh token just spent instead of the new one (a provider bug that
makes an honest client reuse a token).
"""
import argparse
import hashlib
import json
import os
import random
import secrets
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Harness"))
from scripted_idp import SigningKey, b64u, jwk_thumbprint, split_jws, verify_client_assertion, verify_dpop_proof  # noqa: E402
from cryptography.hazmat.primitives.serialization import load_pem_public_key  # noqa: E402

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
FAULTED_PATHS = {"/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/jwks",
                 "/device_authorization", "/token"}


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.rng = random.Random(args.seed)
        self.keys = [SigningKey("ES256", "key-1")]
        self.key_serial = 1
        self.clock_offset = 0.0
        self.fault, self.fault_until = None, 0.0
        self.devices = {}          # device_code -> {client_id, scope, jkt}
        self.families = {}         # family id -> dict
        self.refresh = {}          # refresh token -> {family, gen, spent_at, successor}
        self.access = {}           # access token -> {family, issued_at, ttl, jkt}
        self.dpop_jtis = set()
        self.client_keys = {}      # client_id -> public key, for private_key_jwt (--client-key)
        self.assertion_jtis = set()
        self.faults_served = {}
        self.refresh_answers = 0
        self.requests = {}         # path -> count (the driver's own /_ requests not counted)
        # What each token and resource request met, in order, for explaining a failed call
        # afterwards (GET /_trace): tokens are named by the first 8 hex digits of their SHA-256.
        self.trace = []
        self.port = 0
        self.scheme = "http"
        self.cert_serial = 0       # which of the --tls certificates new connections get
        self.down = False          # restarting: the listener is closed, open connections answer nothing
        self.restart = None        # set by main: restart(seconds)

    def base(self):
        # Over TLS the name is localhost: the static build's mbedTLS 2.28 matches DNS names only.
        return f"{self.scheme}://{'localhost' if self.scheme == 'https' else '127.0.0.1'}:{self.port}"

    def now(self):
        return time.time() + self.clock_offset

    def note(self, **event):
        with self.lock:
            self.trace.append(event)

    def active_fault(self):
        with self.lock:
            if self.fault and time.time() < self.fault_until:
                return self.fault
            self.fault = None
            return None


def h8(token):
    """A token's name in the trace: never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()[:8] if token else None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "soak-provider/1"
    state: State

    def log_message(self, fmt, *args):
        pass

    def date_time_string(self, timestamp=None):
        import email.utils
        return email.utils.formatdate(timestamp if timestamp is not None else self.state.now(), usegmt=True)

    def do_GET(self):
        self._route()

    def do_POST(self):
        self._route()

    def _params(self):
        query = urllib.parse.urlsplit(self.path).query
        params = {k: v[0] for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self._body = body
        if body and (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
            params.update({k: v[0] for k, v in urllib.parse.parse_qs(body.decode(errors="replace"),
                                                                     keep_blank_values=True).items()})
        return params

    def _send(self, status, obj=None, raw=None, headers=None, content_type="application/json"):
        body = raw if raw is not None else json.dumps(obj).encode()
        self._sent = (status, obj if isinstance(obj, dict) else {})
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _route(self):
        st = self.state
        path = urllib.parse.urlsplit(self.path).path
        self._received = time.time()
        if not path.startswith("/_"):
            with st.lock:
                st.requests[path] = st.requests.get(path, 0) + 1
        try:
            params = self._params()
            if st.down and not path.startswith("/_"):
                # An old connection of the process that is restarting: closed, nothing processed.
                self._note_dropped(path, params, "restart")
                self.close_connection = True
                return
            if path in FAULTED_PATHS:
                fault = st.active_fault()
                if fault and self._inject(fault):
                    self._note_dropped(path, params, fault)
                    return
            if path in ("/token", "/device_authorization") and not self._client_authenticated(params):
                return
            handler = {
                "/.well-known/openid-configuration": self._metadata,
                "/.well-known/oauth-authorization-server": self._metadata,
                "/jwks": self._jwks, "/device_authorization": self._device_authorization,
                "/token": self._token, "/resource": self._resource, "/revoke": self._revoke,
                "/_control": self._control, "/_stats": self._stats, "/_token": self._token_info,
                "/_trace": self._trace,
            }.get(path)
            if handler is None:
                return self._send(404, {"error": "not_found"})
            self._sent = (None, {})
            try:
                handler(params)
            finally:
                if path in ("/token", "/resource"):
                    self._note_answer(path, params)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _client_authenticated(self, params):
        """private_key_jwt for the clients given a key (--client-key): a valid assertion with an unseen
        jti, else 401 invalid_client; other clients are public. Runs after the faults, as a real
        provider's would."""
        st = self.state
        assertion = params.get("client_assertion")
        client = params.get("client_id")
        if client is None and assertion:
            try:
                client = split_jws(assertion)[1].get("sub")
            except Exception:
                client = None
            params["client_id"] = client
        key = st.client_keys.get(client)
        if key is None:
            return True
        why = None
        if params.get("client_assertion_type") != ASSERTION_TYPE or not assertion:
            why = "no client assertion"
        else:
            try:
                _, claims, _ = verify_client_assertion(assertion, key, client, st.base(), "client-authentication+jwt",
                                                       None, ["ES256"])
                with st.lock:
                    if claims["jti"] in st.assertion_jtis:
                        why = "jti reused"
                    st.assertion_jtis.add(claims["jti"])
            except ValueError as e:
                why = str(e)
        if why is None:
            return True
        self._send(401, {"error": "invalid_client", "error_description": why})
        self._note_answer(urllib.parse.urlsplit(self.path).path, params)
        return False

    def _note_dropped(self, path, params, fault):
        """One trace event for a request a fault answered or dropped before it was processed."""
        self.state.note(t=self._received, done=time.time(), path=path, client=params.get("client_id"),
                        rt=h8(params.get("refresh_token")), outcome="fault:" + fault)

    def _note_answer(self, path, params):
        """One trace event for a token or resource request: what was presented, what came back."""
        st = self.state
        status, obj = self._sent
        presented = (self.headers.get("Authorization") or "").partition(" ")[2]
        client = params.get("client_id")
        if path == "/resource":
            with st.lock:
                rec = st.access.get(presented)
                fam = st.families.get(rec["family"]) if rec else None
            client = fam["client_id"] if fam else None
            why = ("unknown" if rec is None else "revoked" if rec.get("revoked")
                   else "expired" if time.time() > rec["issued_at"] + rec["ttl"] else "")
            st.note(t=self._received, done=time.time(), path=path, client=client, at=h8(presented),
                    status=status, why=why if status != 200 else "")
            return
        st.note(t=self._received, done=time.time(), path=path, client=client, grant=params.get("grant_type"),
                rt=h8(params.get("refresh_token")), status=status, error=obj.get("error"),
                description=obj.get("error_description"), new_at=h8(obj.get("access_token")),
                new_rt=h8(obj.get("refresh_token")))

    def _trace(self, params):
        st = self.state
        since, until = float(params.get("since", 0)), float(params.get("until", 1e12))
        with st.lock:
            out = [e for e in st.trace if e.get("client") in (params.get("client"), None) and since <= e["t"] <= until]
        self._send(200, {"events": out})

    # ---------- faults ----------
    def _inject(self, fault):
        """True when the fault answered (or dropped) the request; "slow" delays and goes on."""
        st = self.state
        with st.lock:
            st.faults_served[fault] = st.faults_served.get(fault, 0) + 1
        if fault == "503":
            self._send(503, raw=b"<html>upstream trouble</html>", content_type="text/html")
        elif fault == "503-retry-after":
            self._send(503, raw=b"<html>upstream trouble</html>", content_type="text/html",
                       headers={"Retry-After": "1"})
        elif fault == "reset":
            # SO_LINGER 0: close() sends RST, as a crashing load balancer does.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
        elif fault == "stall":
            time.sleep(st.args.stall)
            self.close_connection = True
        elif fault == "slow":
            time.sleep(2 + 2 * random.random())
            return False
        else:
            return False
        return True

    def _control(self, params):
        st = self.state
        cmd = json.loads(self._body or b"{}")
        with st.lock:
            if "fault" in cmd:
                st.fault, st.fault_until = cmd["fault"], time.time() + float(cmd.get("seconds", 3))
            if cmd.get("event") == "jwks-rotate":
                st.key_serial += 1
                st.keys = (st.keys + [SigningKey("ES256", f"key-{st.key_serial}")])[-2:]
            if cmd.get("event") == "cert-swap":
                st.cert_serial += 1
            if "clock_offset" in cmd:
                st.clock_offset = float(cmd["clock_offset"])
        if "restart" in cmd:
            threading.Thread(target=st.restart, args=(float(cmd["restart"]),), daemon=True).start()
        self._send(200, {"ok": True})

    def _stats(self, params):
        st = self.state
        with st.lock:
            fams = [dict(f, id=i) for i, f in st.families.items()]
            out = {"families": fams, "faults_served": dict(st.faults_served), "refresh_answers": st.refresh_answers,
                   "requests": dict(st.requests)}
        self._send(200, out)

    def _token_info(self, params):
        st = self.state
        with st.lock:
            for tok, rec in st.access.items():
                if hashlib.sha256(tok.encode()).hexdigest() == params.get("h"):
                    fam = st.families[rec["family"]]
                    return self._send(200, {"issued_at": rec["issued_at"], "ttl": rec["ttl"],
                                            "family": rec["family"], "revoked": fam["revoked"]})
        self._send(404, {"error": "unknown"})

    # ---------- OAuth ----------
    def _metadata(self, params):
        base = self.state.base()
        self._send(200, {
            "issuer": base, "token_endpoint": base + "/token",
            "device_authorization_endpoint": base + "/device_authorization",
            "revocation_endpoint": base + "/revoke", "jwks_uri": base + "/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["refresh_token", DEVICE_GRANT],
            "subject_types_supported": ["public"], "id_token_signing_alg_values_supported": ["ES256"],
            "token_endpoint_auth_methods_supported": ["none", "private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
            "scopes_supported": ["openid", "offline_access"],
            "dpop_signing_alg_values_supported": ["ES256"]})

    def _jwks(self, params):
        with self.state.lock:
            keys = [k.jwk for k in self.state.keys]
        self._send(200, {"keys": keys})

    def _device_authorization(self, params):
        st = self.state
        code = secrets.token_urlsafe(24)
        with st.lock:
            st.devices[code] = {"client_id": params.get("client_id", ""), "scope": params.get("scope", "openid")}
        uri = st.base() + "/device"
        self._send(200, {"device_code": code, "user_code": "SOAK-TEST", "verification_uri": uri,
                         "verification_uri_complete": uri + "?user_code=SOAK-TEST", "expires_in": 300, "interval": 1})

    def _dpop(self, htm, htu, access_token=None):
        """(ok, jkt or None, error) for the request's DPoP proof (no proof: ok, None)."""
        proof = self.headers.get("DPoP")
        if proof is None:
            return True, None, None
        try:
            header, claims = verify_dpop_proof(proof, htm, htu, access_token)
        except ValueError as e:
            return False, None, str(e)
        with self.state.lock:
            if claims["jti"] in self.state.dpop_jtis:
                return False, None, "jti reused"
            self.state.dpop_jtis.add(claims["jti"])
        return True, jwk_thumbprint(header["jwk"]), None

    def _issue(self, family_id, with_id_token=True):
        """A new access + refresh pair of the family (caller holds the lock)."""
        st = self.state
        fam = st.families[family_id]
        ttl = st.rng.randint(st.args.at_ttl_min, st.args.at_ttl_max)
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        fam["gen"] += 1
        st.refresh[refresh] = {"family": family_id, "gen": fam["gen"], "spent_at": None, "successor": None, "spent_received": None,
                               "presented": False}
        st.access[access] = {"family": family_id, "issued_at": time.time(), "ttl": ttl, "jkt": fam["jkt"]}
        fam["current"] = refresh
        body = {"access_token": access, "token_type": "DPoP" if fam["jkt"] else "Bearer", "expires_in": ttl,
                "refresh_token": refresh, "scope": fam["scope"]}
        if with_id_token:
            key = st.keys[-1]
            now = int(st.now())
            claims = {"iss": st.base(), "sub": "soak-" + fam["client_id"], "aud": fam["client_id"], "iat": now,
                      "exp": now + 600, "at_hash": b64u(hashlib.sha256(access.encode()).digest()[:16])}
            si = b64u(json.dumps({"alg": "ES256", "kid": key.kid, "typ": "JWT"}).encode()) + "." + \
                b64u(json.dumps(claims).encode())
            body["id_token"] = si + "." + b64u(key.sign(si.encode()))
        return body, refresh

    def _token(self, params):
        st = self.state
        ok, jkt, why = self._dpop("POST", st.base() + "/token")
        if not ok:
            return self._send(400, {"error": "invalid_dpop_proof", "error_description": why})
        grant = params.get("grant_type")
        if grant == DEVICE_GRANT:
            with st.lock:
                dev = st.devices.pop(params.get("device_code", ""), None)
                if dev is None:
                    return self._send(400, {"error": "invalid_grant"})
                fid = len(st.families) + 1
                st.families[fid] = {"client_id": dev["client_id"], "scope": dev["scope"], "jkt": jkt, "gen": 0,
                                    "created": time.time(), "refreshes": 0, "reuses": 0, "reuses_in_grace": 0,
                                    "revoked": False, "revoked_at": None, "revoke_reason": None,
                                    "reused_rotated_at": None, "reused_received_at": None,
                                    "reused_successor_presented": None,
                                    "refresh_after_revoke": 0, "current": None, "grace_reuses": []}
                body, _ = self._issue(fid)
            return self._send(200, body)
        if grant != "refresh_token":
            return self._send(400, {"error": "unsupported_grant_type"})
        token = params.get("refresh_token", "")
        with st.lock:
            rec = st.refresh.get(token)
            if rec is None:
                return self._send(400, {"error": "invalid_grant"})
            fam = st.families[rec["family"]]
            if fam["jkt"] is not None and fam["jkt"] != jkt:
                return self._send(400, {"error": "invalid_dpop_proof", "error_description": "wrong key"})
            if fam["revoked"]:
                fam["refresh_after_revoke"] += 1
                return self._send(400, {"error": "invalid_grant"})
            rec["presented"] = True
            now = time.time()
            if rec["spent_at"] is not None:
                fam["reuses"] += 1
                successor = st.refresh.get(rec["successor"]) or {}
                if now - rec["spent_at"] <= st.args.grace:
                    fam["reuses_in_grace"] += 1
                    fam["grace_reuses"].append([rec.get("spent_received") or rec["spent_at"], rec["spent_at"]])
                    st.refresh[fam["current"]]["spent_at"] = now  # the unseen answer is retired
                else:
                    fam.update(revoked=True, revoked_at=now, revoke_reason="reuse",
                               reused_rotated_at=rec["spent_at"], reused_received_at=rec.get("spent_received") or rec["spent_at"],
                               reused_successor_presented=bool(successor.get("presented")))
                    for a in st.access.values():
                        if a["family"] == rec["family"]:
                            a["revoked"] = True
                    return self._send(400, {"error": "invalid_grant", "error_description": "refresh token reused"})
            fam["refreshes"] += 1
            st.refresh_answers += 1
            body, new = self._issue(rec["family"])
            rec["spent_at"], rec["successor"], rec["spent_received"] = now, new, self._received
            if st.args.defect == "stale-refresh-answer" and st.refresh_answers % 5 == 0:
                body["refresh_token"] = token
        self._send(200, body)

    def _revoke(self, params):
        self._send(200, {})

    def _resource(self, params):
        st = self.state
        scheme, _, credential = (self.headers.get("Authorization") or "").partition(" ")
        with st.lock:
            rec = st.access.get(credential)
            expired = rec is None or rec.get("revoked") or time.time() > rec["issued_at"] + rec["ttl"]
        challenge = 'Bearer error="invalid_token"'
        if rec is not None and rec["jkt"]:
            challenge = 'DPoP algs="ES256", error="invalid_token"'
            if scheme != "DPoP":
                expired = True
            else:
                ok, jkt, _ = self._dpop("GET", st.base() + "/resource", access_token=credential)
                if not ok or jkt != rec["jkt"]:
                    expired = True
        elif scheme != "Bearer":
            expired = True
        if expired:
            return self._send(401, {"error": "invalid_token"}, headers={"WWW-Authenticate": challenge})
        self._send(200, {"resource": "soak", "family": rec["family"]})


class TLSServer(ThreadingHTTPServer):
    """Serves TLS with whichever certificate is current. A swap (the "cert-swap" event) takes effect
    at the next connection, as a provider's certificate renewal does; open connections keep theirs."""
    contexts = []
    state = None

    def finish_request(self, request, client_address):
        ctx = self.contexts[self.state.cert_serial % len(self.contexts)]
        try:
            tls = ctx.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # a client that gave up or refused the certificate: nothing to answer
        try:
            super().finish_request(tls, client_address)
        finally:
            try:
                tls.close()
            except OSError:
                pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--grace", type=float, default=0.0)
    p.add_argument("--at-ttl-min", type=int, default=10)
    p.add_argument("--at-ttl-max", type=int, default=30)
    p.add_argument("--stall", type=float, default=35.0)
    p.add_argument("--defect", default="")
    p.add_argument("--client-key", action="append", default=[], metavar="CLIENT=PEM",
                   help="this client authenticates with private_key_jwt by the key whose public PEM is given")
    p.add_argument("--tls", default="", help="a directory with a.pem/a.key and b.pem/b.key: serve https, "
                                             "swapping between the two certificates at each cert-swap event")
    args = p.parse_args()
    st = State(args)
    for item in args.client_key:
        client, _, pem = item.partition("=")
        with open(pem, "rb") as f:
            st.client_keys[client] = load_pem_public_key(f.read())
    handler = type("H", (Handler,), {"state": st})
    if args.tls:
        TLSServer.contexts = []
        for name in ("a", "b"):
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(os.path.join(args.tls, name + ".pem"), os.path.join(args.tls, name + ".key"))
            TLSServer.contexts.append(ctx)
        TLSServer.state = st
        st.scheme = "https"

    def listen(port):
        server = (TLSServer if args.tls else ThreadingHTTPServer)(("127.0.0.1", port), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    server = listen(args.port)
    st.port = server.server_address[1]

    def restart(seconds):
        """The provider restarted, gracefully: the listener closes (connections are refused), requests
        in progress finish, idle connections answer nothing, and after `seconds` the same port
        listens again with the state kept (a provider with a database)."""
        nonlocal server
        with st.lock:
            if st.down:
                return
            st.down = True
        server.shutdown()
        server.server_close()
        time.sleep(seconds)
        deadline = time.time() + 30
        while True:
            try:
                server = listen(st.port)
                break
            except OSError:
                # Another socket took the port meanwhile (an outgoing connection's local port):
                # the restart lasts until it is free again.
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        st.down = False

    st.restart = restart
    # The driver's own requests (/_control, /_stats, /_trace, /_token) go to a second, plain port
    # that is never faulted nor restarted.
    control = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    control.daemon_threads = True
    threading.Thread(target=control.serve_forever, daemon=True).start()
    print(f"PORT {st.port} CONTROL {control.server_address[1]}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
