#!/usr/bin/env python3
"""Probe the test Glewlwyd's DPoP (RFC 9449) behaviour with raw HTTP and hand-made ES256 proofs.

These are the facts the DPoP integration tests rely on; the probe proves them against the running
server, independently of Latchkey's own code, and is the harness self-test for the DPoP plugins.

usage: dpop_probe.py --issuer ISSUER --client-id ID [--ca-file PEM] [--nonce]
                     [--confidential-client-id ID --confidential-secret-file FILE]
       dpop_probe.py --thumbprint-of PROOF   (prints the RFC 7638 thumbprint of the proof's jwk)
  without --nonce (plugin `dpop`): binding, refresh with the same key, refusals of another key /
      a reused jti / a wrong htu / no proof (the refresh token stays usable), /userinfo as a DPoP
      resource (ath; Bearer refused; any key passes), revocation (public client: Glewlwyd's /revoke
      bug; confidential client: Basic auth, DPoP ignored);
  with --nonce (plugin `dpopnonce`): the use_dpop_nonce challenges at /token and /userinfo.
Prints one JSON object per check ({"check", "ok", "measured"}) and exits 1 when any check fails.
"""
import argparse
import base64
import hashlib
import json
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

HERE = os.path.dirname(os.path.abspath(__file__))


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64u_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwt_claims(token: str) -> dict:
    """The payload of a compact JWS, unverified (the server's own token, read for cnf.jkt)."""
    return json.loads(b64u_decode(token.split(".")[1]))


class ProofKey:
    """A P-256 key that signs DPoP proofs (RFC 9449 §4.2)."""

    def __init__(self):
        self._key = ec.generate_private_key(ec.SECP256R1())
        numbers = self._key.public_key().public_numbers()
        self.jwk = {"kty": "EC", "crv": "P-256",
                    "x": b64u(numbers.x.to_bytes(32, "big")), "y": b64u(numbers.y.to_bytes(32, "big"))}

    @property
    def thumbprint(self) -> str:
        """RFC 7638: SHA-256 over the required members in lexicographic order, no whitespace."""
        canonical = json.dumps({k: self.jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
        return b64u(hashlib.sha256(canonical.encode()).digest())

    def proof(self, htm: str, htu: str, access_token=None, nonce=None, jti=None, iat=None) -> str:
        header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk}
        claims = {"jti": jti or b64u(os.urandom(16)), "htm": htm, "htu": htu, "iat": iat or int(time.time())}
        if access_token is not None:
            claims["ath"] = b64u(hashlib.sha256(access_token.encode()).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        signing_input = b64u(json.dumps(header).encode()) + "." + b64u(json.dumps(claims).encode())
        r, s = decode_dss_signature(self._key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64u(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


class Answer:
    def __init__(self, status, headers, body: bytes):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        try:
            return json.loads(self.body.decode() or "null")
        except ValueError:
            return None

    def header(self, name):
        return self.headers.get(name) if self.headers else None

    def summary(self) -> dict:
        out = {"status": self.status, "body": self.body.decode(errors="replace")[:200]}
        for h in ("DPoP-Nonce", "WWW-Authenticate"):
            if self.header(h):
                out[h] = self.header(h)
        return out


class HTTP:
    def __init__(self, ca_file=None):
        self._context = ssl.create_default_context(cafile=ca_file) if ca_file else None

    def send(self, method, url, form=None, headers=None) -> Answer:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        h = dict(headers or {})
        if data is not None:
            h["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(url, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=15, context=self._context) as r:
                return Answer(r.status, r.headers, r.read())
        except urllib.error.HTTPError as e:
            return Answer(e.code, e.headers, e.read() if e.fp else b"")


class Probe:
    def __init__(self, a):
        self.a, self.http, self.failures = a, HTTP(a.ca_file if a.issuer.startswith("https:") else None), 0
        self._extra_headers = {}
        meta = self.http.send("GET", a.issuer + "/.well-known/openid-configuration").json() or {}
        self.token_url, self.userinfo_url = meta.get("token_endpoint"), meta.get("userinfo_endpoint")
        self.revoke_url, self.device_url = meta.get("revocation_endpoint"), meta.get("device_authorization_endpoint")
        self.check("metadata lists ES256 for DPoP", "ES256" in (meta.get("dpop_signing_alg_values_supported") or []),
                   meta.get("dpop_signing_alg_values_supported"))

    def observe(self, name, held, measured=None):
        """A fact about a Glewlwyd bug that Latchkey does not depend on: printed, never a failure.
        (The public-client revocation path answered a bare 401 to both proofs once in CI; whether the
        bug shows is Glewlwyd's business, and Latchkey's logout is tested by GlewlwydDPoPTests.)"""
        print(json.dumps({"observation": name, "held": bool(held), "measured": measured}), flush=True)

    def check(self, name, ok, measured=None):
        print(json.dumps({"check": name, "ok": bool(ok), "measured": measured}), flush=True)
        if not ok:
            self.failures += 1
        return ok

    # --- token endpoint -------------------------------------------------------------------
    def token(self, form, key=None, nonce=None, **proof_args):
        headers = dict(self._extra_headers)
        if key is not None:
            headers["DPoP"] = key.proof("POST", proof_args.pop("htu", self.token_url), nonce=nonce, **proof_args)
        form = dict(form) if self._extra_headers else dict(form, client_id=self.a.client_id)
        return self.http.send("POST", self.token_url, form=form, headers=headers)

    def device_login(self, key, nonce_mode=False):
        """Device grant with proofs on the polls; returns (token response, nonce in use)."""
        r = self.http.send("POST", self.device_url, form={"client_id": self.a.client_id, "scope": self.a.scope},
                           headers=self._extra_headers)
        device = r.json() or {}
        if not self.check("device authorization", r.status == 200 and "user_code" in device, r.summary()):
            return None, None
        grant = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device["device_code"]}
        nonce = None
        if nonce_mode:
            # Before approval Glewlwyd answers authorization_pending without looking at the proof:
            # the nonce challenge comes only once the code is approved.
            pending = self.token(grant, key)
            self.check("nonce: unapproved poll without a nonce -> 400 authorization_pending (proof not yet read)",
                       pending.status == 400 and (pending.json() or {}).get("error") == "authorization_pending",
                       pending.summary())
        approve = subprocess.run([sys.executable, os.path.join(HERE, "approve.py"), device["user_code"],
                                  "--issuer", self.a.issuer] + (["--ca-file", self.a.ca_file] if self.a.ca_file else []),
                                 capture_output=True, text=True, timeout=30)
        if not self.check("device code approved", approve.returncode == 0, approve.stderr.strip()):
            return None, None
        time.sleep(self.a.interval)
        if nonce_mode:
            fresh = self.token(grant, key)
            nonce = fresh.header("DPoP-Nonce")
            self.check("nonce: approved poll without a nonce -> 400 use_dpop_nonce + DPoP-Nonce", fresh.status == 400 and
                       (fresh.json() or {}).get("error") == "use_dpop_nonce" and nonce, fresh.summary())
            time.sleep(self.a.interval)
        r = self.token(grant, key, nonce=nonce)
        return r, nonce

    # --- the scenarios --------------------------------------------------------------------
    def run_binding(self):
        key, thief = ProofKey(), ProofKey()
        r, _ = self.device_login(key)
        if r is None:
            return
        body = r.json() or {}
        self.check("device token with a proof: 200, token_type DPoP", r.status == 200 and body.get("token_type") == "DPoP",
                   {"status": r.status, "token_type": body.get("token_type"), "keys": sorted(body)})
        at, rt = body.get("access_token", ""), body.get("refresh_token", "")
        jkt = (jwt_claims(at).get("cnf") or {}).get("jkt") if at.count(".") == 2 else None
        self.check("access token cnf.jkt = the proof key's RFC 7638 thumbprint", jkt == key.thumbprint,
                   {"cnf.jkt": jkt, "thumbprint": key.thumbprint})

        # /userinfo: a DPoP resource.
        def userinfo(scheme, proof_key=None, ath=True, nonce=None):
            headers = {"Authorization": f"{scheme} {at}"}
            if proof_key is not None:
                headers["DPoP"] = proof_key.proof("GET", self.userinfo_url, access_token=at if ath else None, nonce=nonce)
            return self.http.send("GET", self.userinfo_url, headers=headers)
        u = userinfo("DPoP", key)
        self.check("userinfo with Authorization: DPoP + proof with ath -> 200", u.status == 200 and
                   (u.json() or {}).get("sub"), u.summary())
        u = userinfo("Bearer")
        self.check("userinfo with the bound token as Bearer -> refused", u.status == 401, u.summary())
        u = userinfo("DPoP")
        self.check("userinfo with Authorization: DPoP and no proof -> refused", u.status in (400, 401, 403), u.summary())
        u = userinfo("DPoP", key, ath=False)
        self.check("userinfo proof without ath -> refused", u.status in (400, 401, 403), u.summary())
        u = userinfo("DPoP", thief)
        self.check("userinfo proof from another key -> accepted (Glewlwyd does not compare cnf.jkt)",
                   u.status == 200, u.summary())

        # Refusals on refresh; after each, the refresh token must still work.
        grant = {"grant_type": "refresh_token", "refresh_token": rt}
        r = self.token(grant, None)
        self.check("refresh of a bound token without a proof -> refused", r.status in (400, 401, 403), r.summary())
        r = self.token(grant, thief)
        self.check("refresh with a proof from another key -> 403 invalid_dpop_proof",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        r = self.token(grant, key, htu=self.token_url + "x")
        self.check("refresh with a wrong htu -> 403 invalid_dpop_proof",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        other_host = self.token_url.replace("127.0.0.1", "localhost", 1) if "127.0.0.1" in self.token_url else \
            self.token_url.replace("localhost", "127.0.0.1", 1)
        r = self.token(grant, key, htu=other_host)
        self.check("refresh with htu naming the same server by another host name -> 403 invalid_dpop_proof",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof",
                   dict(r.summary(), htu=other_host))
        r = self.token(grant, key, htu=self.token_url + "?a=b")
        self.check("refresh with htu carrying a query -> 403 invalid_dpop_proof",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        r = self.token(grant, key, iat=int(time.time()) - 600)
        self.check("refresh with a proof 600 s old -> 403 invalid_dpop_proof",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        jti = b64u(os.urandom(16))
        r = self.token(grant, key, jti=jti)
        first = r.json() or {}
        self.check("refresh with a proof from the same key -> 200 DPoP, same cnf.jkt, rotated refresh token",
                   r.status == 200 and first.get("token_type") == "DPoP" and
                   (jwt_claims(first.get("access_token", "a.e30.c")).get("cnf") or {}).get("jkt") == key.thumbprint and
                   first.get("refresh_token") not in (None, rt),
                   {"status": r.status, "token_type": first.get("token_type"), "keys": sorted(first)})
        if r.status != 200:
            return
        rt, at = first.get("refresh_token", rt), first.get("access_token", at)
        grant = {"grant_type": "refresh_token", "refresh_token": rt}
        r = self.token(grant, key, jti=jti)
        self.check("refresh reusing a jti -> 403 invalid_dpop_proof (the refresh token stays usable)",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        r = self.token(grant, thief)
        self.check("stolen refresh token replayed with the thief's key -> 403 invalid_dpop_proof",
                   r.status == 403 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        r = self.token(grant, key)
        second = r.json() or {}
        self.check("after all these refusals the refresh token still works (200)", r.status == 200, r.summary())
        rt, at = second.get("refresh_token", rt), second.get("access_token", at)

        # Revocation. A public client cannot authenticate at /revoke with its client_id alone (401);
        # Glewlwyd wants an access token with scope glwd_revoke, and for a DPoP-bound one it checks
        # a proof against `<issuer>revoke`, without the slash (a Glewlwyd bug), so a correct proof
        # fails and a public DPoP client cannot revoke.
        revoke_rt = {"client_id": self.a.client_id, "token": rt, "token_type_hint": "refresh_token"}
        r = self.http.send("POST", self.revoke_url, form=revoke_rt)
        self.check("revoke (public client) with client_id only -> 401", r.status == 401, r.summary())
        r = self.http.send("POST", self.revoke_url, form=revoke_rt, headers={"Authorization": f"Bearer {at}"})
        self.check("revoke with the bound access token as Bearer -> 401", r.status == 401, r.summary())
        r = self.http.send("POST", self.revoke_url, form=revoke_rt, headers={
            "Authorization": f"DPoP {at}", "DPoP": key.proof("POST", self.revoke_url, access_token=at)})
        self.observe("revoke with Authorization: DPoP + a correct proof (htu <issuer>/revoke) -> 401 invalid_dpop_proof",
                   r.status == 401 and (r.json() or {}).get("error") == "invalid_dpop_proof", r.summary())
        buggy = self.a.issuer + "revoke"
        r = self.http.send("POST", self.revoke_url, form=revoke_rt, headers={
            "Authorization": f"DPoP {at}", "DPoP": key.proof("POST", buggy, access_token=at)})
        self.observe("revoke with a proof whose htu is <issuer>revoke (Glewlwyd's bug) -> 200", r.status == 200,
                   dict(r.summary(), htu=buggy))
        r = self.token({"grant_type": "refresh_token", "refresh_token": rt}, key)
        self.observe("refresh after that revocation -> 400 with an empty body", r.status == 400 and not r.body, r.summary())
        if self.a.confidential_client_id and self.a.confidential_secret_file:
            self.run_confidential_revocation()

    def run_confidential_revocation(self):
        """A confidential client authenticates itself at /revoke; there DPoP is ignored."""
        secret = open(self.a.confidential_secret_file).read().strip()
        auth = "Basic " + base64.b64encode(f"{self.a.confidential_client_id}:{secret}".encode()).decode()
        public_id, self.a.client_id = self.a.client_id, self.a.confidential_client_id
        self._extra_headers = {"Authorization": auth}
        try:
            key = ProofKey()
            r, _ = self.device_login(key)
            body = (r.json() or {}) if r is not None else {}
            self.check("confidential client: device token with a proof -> 200 DPoP",
                       r is not None and r.status == 200 and body.get("token_type") == "DPoP",
                       r.summary() if r is not None else None)
            if r is None or r.status != 200:
                return
            rt = body["refresh_token"]
            r = self.http.send("POST", self.revoke_url, form={"token": rt, "token_type_hint": "refresh_token"},
                               headers={"Authorization": auth, "DPoP": key.proof("POST", self.revoke_url)})
            self.check("confidential client: revoke the bound refresh token with Basic auth (+ a proof, ignored) -> 200",
                       r.status == 200, r.summary())
            r = self.token({"grant_type": "refresh_token", "refresh_token": rt}, key)
            self.check("confidential client: refresh after revocation -> 400", r.status == 400, r.summary())
        finally:
            self.a.client_id, self._extra_headers = public_id, {}

    def run_nonce(self):
        key = ProofKey()
        r, nonce = self.device_login(key, nonce_mode=True)
        if r is None:
            return
        body = r.json() or {}
        self.check("nonce: device token with the nonce -> 200 DPoP", r.status == 200 and body.get("token_type") == "DPoP",
                   dict(r.summary(), body=None, token_type=body.get("token_type")))
        at, rt = body.get("access_token", ""), body.get("refresh_token", "")
        grant = {"grant_type": "refresh_token", "refresh_token": rt}
        r = self.token(grant, key)
        self.check("nonce: refresh without a nonce -> 400 use_dpop_nonce + DPoP-Nonce",
                   r.status == 400 and (r.json() or {}).get("error") == "use_dpop_nonce" and r.header("DPoP-Nonce"),
                   r.summary())
        nonce = r.header("DPoP-Nonce") or nonce
        r = self.token(grant, key, nonce="not-the-nonce")
        self.check("nonce: refresh with a wrong nonce -> 400 use_dpop_nonce", r.status == 400 and
                   (r.json() or {}).get("error") == "use_dpop_nonce", r.summary())
        r = self.token(grant, key, nonce=nonce)
        refreshed = r.json() or {}
        self.check("nonce: refresh with the nonce -> 200 (the refresh token survived the challenges)",
                   r.status == 200 and refreshed.get("token_type") == "DPoP", dict(r.summary(), body=None))
        at = refreshed.get("access_token", at)

        def userinfo(nonce_value):
            return self.http.send("GET", self.userinfo_url, headers={
                "Authorization": f"DPoP {at}",
                "DPoP": key.proof("GET", self.userinfo_url, access_token=at, nonce=nonce_value)})
        u = userinfo(None)
        self.check('nonce: userinfo without a nonce -> 401 WWW-Authenticate: DPoP error="use_dpop_nonce" + DPoP-Nonce',
                   u.status == 401 and 'error="use_dpop_nonce"' in (u.header("WWW-Authenticate") or "") and
                   u.header("DPoP-Nonce"), u.summary())
        nonce = u.header("DPoP-Nonce") or nonce
        u = userinfo(nonce)
        self.check("nonce: userinfo with the nonce -> 200", u.status == 200, u.summary())


def thumbprint_of_proof(proof: str) -> str:
    """The RFC 7638 thumbprint of the `jwk` in a DPoP proof's header (for the integration tests)."""
    jwk = json.loads(b64u_decode(proof.split(".")[0]))["jwk"]
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
    return b64u(hashlib.sha256(canonical.encode()).digest())


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--thumbprint-of":
        print(thumbprint_of_proof(sys.argv[2].strip()))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--issuer", default=os.environ.get("LATCHKEY_IT_ISSUER_DPOP"))
    ap.add_argument("--client-id", default=os.environ.get("LATCHKEY_IT_CLIENT_DPOP_PROBE"))
    ap.add_argument("--ca-file", default=os.environ.get("LATCHKEY_IT_CA_FILE"))
    ap.add_argument("--scope", default="openid offline_access profile glwd_revoke")
    ap.add_argument("--interval", type=float, default=float(os.environ.get("LATCHKEY_IT_DEVICE_INTERVAL", "1")))
    ap.add_argument("--confidential-client-id", default=os.environ.get("LATCHKEY_IT_CLIENT_DPOP_CONFIDENTIAL"))
    ap.add_argument("--confidential-secret-file", help="with --confidential-client-id: also revoke as that client")
    ap.add_argument("--nonce", action="store_true", help="the issuer requires DPoP nonces")
    a = ap.parse_args()
    if not a.issuer or not a.client_id:
        print("dpop_probe: --issuer and --client-id are required", file=sys.stderr)
        return 2
    probe = Probe(a)
    probe.run_nonce() if a.nonce else probe.run_binding()
    print(json.dumps({"summary": "dpop_probe", "issuer": a.issuer, "failures": probe.failures}))
    return 1 if probe.failures else 0


if __name__ == "__main__":
    sys.exit(main())
