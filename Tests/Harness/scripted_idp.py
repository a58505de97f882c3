#!/usr/bin/env python3
"""A scripted OAuth 2.0 / OIDC server for the behaviours a real test IdP cannot show.

Glewlwyd (Tests/Harness/idp) covers the honest path. This server, on 127.0.0.1 only, plays
one named scenario: a provider quirk from ../shared/spec/providers.md, a denial, or a network
fault (issue 9). It prints its port on stdout when it is ready and appends one JSON line per
request to --log:
  {"t", "t_done", "method", "path", "params", "headers": {accept, content_type, authorization},
   "status", "event", "poll": n, "early": bool}
Secret-bearing values are logged as "sha256:<16 hex>", never in clear. A form that repeats a
parameter (other than `resource`, RFC 8707) is refused with 400 invalid_request and logged as
event "duplicate-parameters" with "duplicates": [names], as strict servers do (RFC 9126 §2.1).

Issuer: http://127.0.0.1:PORT (no path). Endpoints: /.well-known/openid-configuration,
/.well-known/oauth-authorization-server, /jwks, /device_authorization, /token, /revoke,
/authorize (auto-approves and redirects, for the code flow), /resource (a protected resource:
GET with `Authorization: Bearer <an access token this server issued and has not revoked>`, RFC 6750;
not advertised in the metadata).

DPoP (RFC 9449, the `dpop-*` scenarios): the metadata lists ES256 in
dpop_signing_alg_values_supported; every `DPoP` proof is verified for real (signature with the
embedded public jwk, typ dpop+jwt, alg ES256, htm and htu exactly, iat within 60 s, jti never
reused, ath on /resource, the nonce when the scenario demands one) and the result is logged as
"dpop": {"htm", "htu", "ok", "reason", "jkt", "nonce"}. A proof on the token request binds the
grant: token_type DPoP, a JWT access token with cnf.jkt, a refresh that needs a proof from the
same key, and a /resource that wants `Authorization: DPoP` with a proof from that key.

private_key_jwt (the `private-key-jwt*` scenarios): every request to /token, /device_authorization
and /revoke must carry a client assertion, verified for real against --client-public-key
(signature, alg among the advertised token_endpoint_auth_signing_alg_values_supported, typ, kid
when --client-key-id is given, iss = sub = the body's client_id, aud = the issuer, iat within
60 s, exp - iat <= 60, a jti never seen before; also on /par and /bc-authorize); the result is logged as "client_assertion":
{"ok", "reason", "checked", "alg", "typ", "kid", "iss", "sub", "aud", "jti", "lifetime"}.

usage: scripted_idp.py --scenario NAME [--log FILE] [--port 0] [--interval 1] [--expires-in 30]
                       [--approve-after 2] [--fault-on device|token|refresh|jwks|discovery]
                       [--fault-count 1] [--alg ES256|RS256|PS256] [--at-ttl 3600] [--clock-offset 0] [--list]
--clock-offset SECONDS plays a provider whose clock is that far ahead of this machine's (negative:
behind): its `Date` headers and the iat/exp of the tokens it signs follow that clock.
Requires the `cryptography` package (installed by Tests/run-all.sh).
"""
import argparse
import base64
import email.utils
import hashlib
import json
import secrets
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
SECRET_FIELDS = {"refresh_token", "device_code", "auth_req_id", "code", "code_verifier", "client_secret", "token",
                 "access_token", "id_token", "password", "client_assertion", "subject_token", "actor_token"}
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"

# Each scenario is a set of knobs over the default, well-behaved server. The docstring-like
# "why" says which real provider (or fault) it imitates.
SCENARIOS: dict[str, dict] = {
    "ok": {},
    # OpenID Connect RP-Initiated Logout: the metadata lists end_session_endpoint (only here, so
    # every other scenario keeps the metadata it had).
    "end-session": dict(end_session=True),
    # --- provider quirks (providers.md) ---
    "github-200-pending-and-form-encoded": dict(
        device_form_unless_accept_json=True, pending_status=200, slowdown_status=200,
        slow_down_polls=[2], slow_down_new_interval=2, approve_after=4, token_form_unless_accept_json=True),
    "auth0-403-pending-429-slowdown": dict(pending_status=403, slowdown_status=429, slow_down_polls=[2],
                                           approve_after=4),
    "google-verification-url": dict(uri_field="verification_url", complete=False),
    "entra-declined-with-message-and-no-complete": dict(
        complete=False, message=True, outcome="deny", deny_error="authorization_declined"),
    "interval-string": dict(interval_form="string"),
    "interval-zero": dict(interval_form="zero", approve_after=2),
    "interval-missing": dict(interval_form="missing", approve_after=2),
    "expires-in-missing": dict(expires_form="missing"),
    "spring-pending-after-expiry": dict(outcome="pending-forever", expires_in=3),
    "slow-down-with-new-interval": dict(slow_down_polls=[1], slow_down_new_interval=3, approve_after=3),
    "slow-down-plus-5": dict(slow_down_polls=[1], approve_after=3),
    "denied": dict(outcome="deny", deny_error="access_denied"),
    "expired-token": dict(outcome="expire"),
    "device-not-found-404": dict(outcome="device-not-found"),
    "invalid-client": dict(outcome="invalid-client"),
    "keycloak-pkce-required": dict(pkce_required=True),
    "glewlwyd-empty-400-refresh": dict(refresh_empty_400=True),
    "token-type-lowercase": dict(token_type="bearer"),
    "no-id-token-on-refresh": dict(id_token_on_refresh=False),
    "no-id-token": dict(id_token=False),
    "discovery-without-device-endpoint": dict(discovery_omit=["device_authorization_endpoint",
                                                              "revocation_endpoint"]),
    "discovery-8414-fallback": dict(oidc_discovery_404=True),
    "issuer-mismatch": dict(issuer_suffix="/other"),
    "id-token-wrong-audience": dict(id_token_aud="someone-else"),
    "id-token-expired": dict(id_token_exp_offset=-3600),
    # --- hostile answers (issue 12) ---
    "access-token-crlf": dict(access_token_suffix="\r\nX-Injected: 1"),
    "invalid-grant-while-polling": dict(outcome="invalid-grant"),
    # --- faults (issue 9); where they hit is --fault-on, how often --fault-count ---
    "drop-mid-response": dict(fault="drop"),
    "stall-forever": dict(fault="stall"),
    "status-500": dict(fault="status", fault_status=500),
    "status-502": dict(fault="status", fault_status=502),
    "status-503": dict(fault="status", fault_status=503),
    "status-503-retry-after": dict(fault="status", fault_status=503, retry_after=1),
    "non-json-body": dict(fault="non-json"),
    "oversized-body": dict(fault="oversized"),
    "duplicate-json-keys": dict(fault="duplicate-keys"),
    "wrong-content-type": dict(fault="wrong-content-type"),
    "jwks-rotating-keys": dict(jwks_rotate=True),
    "bad-signature-id-token": dict(bad_signature=True),
    # --- hostile servers (issue 12) ---
    # Terminal escapes in what a person reads: the subject erases the line and holds a C1 CSI.
    "terminal-escapes": dict(complete=False, id_token_sub="user\x1b[2K\rroot\u009b31m"),
    # A code nobody could type, made to hide the rest of the line and set the window title: refused
    # as a malformed answer (RFC 8628 §6.1, exit 7), never shown.
    "user-code-escapes": dict(user_code="WDJB\x1b[8m-HIDDEN\x1b]0;pwned\x07", complete=False),
    "terminal-escapes-denied": dict(outcome="deny", deny_error="access_denied", message=True,
                                    deny_description="Denied\x1b]0;owned\x07\x1b[1A\x1b[2K by policy"),
    # Every answer carries a header with ESC/OSC, a C1 CSI (U+009B) and U+202E as raw UTF-8 bytes: what
    # `-v` prints of it must reach the terminal as visible escapes (issue 37 §3).
    "hostile-headers": dict(outcome="deny", deny_error="access_denied", hostile_header=True, message=True,
                            deny_description="Denied\x1b]0;owned\x07 by policy"),
    "verification-uri-plain-http": dict(verification_uri="http://phish.example/device", complete=False),
    "verification-uri-javascript": dict(verification_uri_complete="javascript:alert(1)//https://ok.example/"),
    # A refresh whose new ID token names another subject (OIDC Core §12.2 refuses it).
    "refresh-id-token-other-subject": dict(refresh_id_token_sub="intruder"),
    # Refresh answers after --refresh-delay seconds (a refresh in flight while logout runs).
    "slow-refresh": dict(),
    # --- protected resource (issue 14) ---
    # The first /resource call is refused with 401 invalid_token whatever the token (revoked early,
    # say), so a client must refresh once and retry (AuthorizedTransport).
    "resource-rejects-first": dict(resource_rejects_first=True),
    # --- fetch (issue 18) ---
    # Every /resource call is refused with 401 invalid_token: one refresh, one retry, then the 401 stands.
    "resource-rejects-always": dict(resource_rejects_always=True),
    # --- resource metadata and step-up (issue 35) ---
    # /prm-resource answers a request without a live token 401 with resource_metadata (RFC 9728
    # §5.1); the metadata names this issuer with a trailing slash, as the mcp SDK writes it.
    "resource-metadata": dict(prm=True),
    # The metadata names two authorization servers: the client must not choose.
    "resource-metadata-several": dict(prm=True, prm_servers=["{issuer}/", "http://127.0.0.1:9/other"]),
    # The 401 names metadata on another origin (never fetched), or metadata about another resource.
    "resource-metadata-other-origin": dict(prm=True, prm_location="http://127.0.0.1:9/.well-known/oauth-protected-resource/prm-resource"),
    "resource-metadata-wrong-resource": dict(prm=True, prm_resource="{base}/other"),
    # /step-up answers 401 insufficient_user_authentication (RFC 9470 §3, acr_values="mfa",
    # max_age=300) until the token comes from a sign-in whose ID token says acr "mfa"; the ID token
    # carries the first acr value asked for and auth_time.
    "step-up": dict(),
    # ... challenges every token, however strong (a second challenge after a step-up: exit 10) ...
    "step-up-always": dict(step_up_always=True),
    # ... and answers every acr asked for with "pwd" (the ID token check: exit 8).
    "step-up-wrong-acr": dict(acr_answer="pwd"),
    # --- DPoP (issue 15) ---
    "dpop": dict(dpop=True),
    # The token endpoint wants a server nonce (400 use_dpop_nonce + DPoP-Nonce, §8) ...
    "dpop-nonce-token": dict(dpop=True, dpop_nonce_token=True),
    # ... and so does the resource (401 WWW-Authenticate: DPoP error="use_dpop_nonce", §9).
    "dpop-nonce-resource": dict(dpop=True, dpop_nonce_resource=True),
    # Every nonce is "stale": the retry is challenged again (a client must stop: exit 7).
    "dpop-nonce-twice": dict(dpop=True, dpop_nonce_token=True, dpop_nonce_rotate=True),
    "dpop-nonce-twice-resource": dict(dpop=True, dpop_nonce_resource=True, dpop_nonce_rotate=True),
    # The first /resource call is refused (`DPoP error="invalid_token"`) with an 8,000-byte DPoP-Nonce of
    # bytes that are not UTF-8: stored unchecked it tripled in size and made the save after the
    # rotated refresh token fail on a nearly full disk (issue 37 §1).
    "dpop-resource-huge-nonce": dict(dpop=True, resource_rejects_first=True, resource_huge_nonce=True),
    # Ignores the proof and issues a Bearer token (under --dpop always: exit 7).
    "dpop-bearer-answer": dict(dpop=True, dpop_bearer_answer=True),
    # Binds the token to some other key's thumbprint (cnf.jkt mismatch: exit 7).
    "dpop-cnf-mismatch": dict(dpop=True, dpop_cnf_mismatch=True),
    # DPoP is not in the metadata (auto sends no proofs); a proof is still honoured.
    "dpop-unadvertised": dict(dpop=True, dpop_unadvertised=True),
    # --- PAR, resource indicators, client credentials (issue 16) ---
    # The metadata requires pushed authorization requests (RFC 9126 §5); /par stores the request and
    # answers 201 + request_uri; /authorize accepts only a live request_uri (a plain request is
    # redirected back with invalid_request).
    "par-required": dict(par=True, par_required=True),
    # PAR is advertised but the answer has no request_uri (exit 7).
    "par-no-request-uri": dict(par=True, par_answer={"expires_in": 60}),
    # The request_uri is refused at /authorize as expired (invalid_request_uri on the redirect).
    "par-expired": dict(par=True, par_required=True, par_expired=True),
    # Like idpyoidc 5.0.0: an OpenID request by reference also needs response_type and scope
    # (OpenID Connect Core §6.2), redirect_uri and, for offline_access, prompt (§11) in the URL,
    # equal to the pushed values (400 without them).
    "par-oidc-strict": dict(par=True, par_required=True, par_oidc_strict=True),
    # The client-credentials grant (RFC 6749 §4.4), for confidential clients (HTTP Basic or
    # client_secret_post); no refresh token, no ID token. Access tokens live --at-ttl seconds.
    "client-credentials": dict(client_credentials=True),
    # --- CIBA poll mode (issue 17): /bc-authorize needs client authentication and a login_hint;
    # the ID token carries urn:openid:params:jwt:claim:auth_req_id. The device-flow knobs
    # (approve_after, slow_down_polls, interval_form, outcome) apply to the CIBA polls too.
    "ciba": dict(ciba=True),
    "ciba-slow-down": dict(ciba=True, slow_down_polls=[1], approve_after=3),
    "ciba-interval-missing": dict(ciba=True, interval_form="missing", approve_after=1),
    "ciba-denied": dict(ciba=True, outcome="deny", deny_error="access_denied"),
    # expired_token once, then (should the client poll again) invalid_grant, as Auth0 does.
    "ciba-expired-then-invalid-grant": dict(ciba=True, outcome="expire-then-invalid-grant"),
    "ciba-status-503": dict(ciba=True, fault="status", fault_status=503),
    # The ID token names another authentication request: a token for someone else's approval.
    "ciba-auth-req-id-swap": dict(ciba=True, ciba_auth_req_id_swap=True),
    # CIBA in ping and push modes only: a client without a callback endpoint cannot use it.
    "ciba-ping-push-only": dict(ciba=True, ciba_modes=["ping", "push"]),
    # The login hint names nobody the provider knows (CIBA Core §13: 400 unknown_user_id).
    "ciba-unknown-user": dict(ciba=True, ciba_unknown_user=True),
    # Cross-device safety (issue 17): the verification page is on another site than the issuer.
    "verification-uri-other-site": dict(verification_uri="https://device-login.example.net/activate", complete=False),
    # --- private_key_jwt (issue 16): every client assertion is verified against the key given
    # with --client-public-key (see verify_client_assertion); aud must be the issuer ---
    "private-key-jwt": dict(pkjwt=True),
    # Only typ "jwt" is accepted (a server that refuses explicit typing).
    "private-key-jwt-typ-jwt": dict(pkjwt=True, pkjwt_typ="jwt"),
    # Only RSA algorithms are advertised (an ES256 client must refuse before sending).
    "private-key-jwt-rsa-only": dict(pkjwt=True, pkjwt_algs=["PS256", "RS256"]),
    # PAR with private_key_jwt: the push is client-authenticated too (RFC 9126 §2.1).
    "par-private-key-jwt": dict(par=True, par_required=True, pkjwt=True),
    # RFC 8705 §5: mtls_endpoint_aliases for the token, revocation and device endpoints at /mtls/...;
    # /explicit/... serves the same endpoints for an operator's --token-endpoint and the like.
    "mtls-aliases": dict(mtls_aliases=True),
    # --- RFC 8693 token exchange (issue 34): what idpyoidc does not show. Any audience is issued
    # (the cache's eviction at 17), an actor token is accepted and logged by its fingerprint, and
    # a proof binds the issued token (DPoP on the exchange). Exchanged tokens live --at-ttl s.
    "token-exchange": dict(token_exchange=True),
    "dpop-token-exchange": dict(dpop=True, token_exchange=True),
}
CIBA_GRANT = "urn:openid:params:grant-type:ciba"


def jwk_thumbprint(jwk: dict) -> str:
    """RFC 7638 for an EC key: SHA-256 of the required members in lexicographic order."""
    canonical = json.dumps({"crv": jwk["crv"], "kty": jwk["kty"], "x": jwk["x"], "y": jwk["y"]},
                           separators=(",", ":"), sort_keys=True)
    return b64u(hashlib.sha256(canonical.encode()).digest())


def b64u_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def split_jws(token: str) -> tuple[dict, dict, bytes]:
    """The decoded header, claims and signature of a compact JWS; ValueError when it is not one."""
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a compact JWS")
    try:
        return json.loads(b64u_decode(parts[0])), json.loads(b64u_decode(parts[1])), b64u_decode(parts[2])
    except Exception as e:
        raise ValueError(f"undecodable: {e}")


def verify_dpop_proof(proof: str, htm: str, htu: str, access_token=None) -> tuple[dict, dict]:
    """Checks one proof (RFC 9449 §4.3, steps 1-11 except nonce and jti, which need state).
    Returns (header, claims); raises ValueError with the reason."""
    header, claims, signature = split_jws(proof)
    if header.get("typ") != "dpop+jwt":
        raise ValueError(f"typ {header.get('typ')!r}")
    if header.get("alg") != "ES256":
        raise ValueError(f"alg {header.get('alg')!r}")
    jwk = header.get("jwk") or {}
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256" or "d" in jwk:
        raise ValueError("jwk is not a public P-256 key")
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(b64u_decode(jwk["x"]), "big"),
                                           int.from_bytes(b64u_decode(jwk["y"]), "big"), ec.SECP256R1()).public_key()
    if len(signature) != 64:
        raise ValueError("signature is not 64 bytes")
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, proof.rsplit(".", 1)[0].encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("bad signature")
    if claims.get("htm") != htm:
        raise ValueError(f"htm {claims.get('htm')!r}, expected {htm!r}")
    if claims.get("htu") != htu:
        raise ValueError(f"htu {claims.get('htu')!r}, expected {htu!r}")
    iat = claims.get("iat")
    if not isinstance(iat, int) or abs(time.time() - iat) > 60:
        raise ValueError(f"iat {iat!r} outside the 60 s window")
    jti = claims.get("jti")
    if not isinstance(jti, str) or len(b64u_decode(jti)) < 16:
        raise ValueError("jti missing or shorter than 128 bits")
    if access_token is not None:
        if claims.get("ath") != b64u(hashlib.sha256(access_token.encode()).digest()):
            raise ValueError("ath does not match the access token")
    elif "ath" in claims:
        raise ValueError("ath on a token request")
    return header, claims


CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
CLIENT_AUTH_PATHS = {"/token", "/device_authorization", "/revoke", "/par", "/bc-authorize"}
PKJWT_ALGS = ["ES256", "ES384", "PS256", "RS256"]


def verify_client_assertion(assertion: str, public_key, client_id: str, audience: str, typ: str,
                            kid, algs: list) -> tuple[dict, dict, list]:
    """Checks one private_key_jwt assertion (RFC 7523 §3 as profiled by its successor draft), all
    but jti freshness, which needs state. Returns (header, claims, the names of the checks passed);
    raises ValueError with the reason."""
    checked = []
    header, claims, signature = split_jws(assertion)
    alg = header.get("alg")
    if alg not in algs:
        raise ValueError(f"alg {alg!r} not advertised ({algs})")
    checked.append("alg")
    if header.get("typ") != typ:
        raise ValueError(f"typ {header.get('typ')!r}, expected {typ!r}")
    checked.append("typ")
    if kid is not None and header.get("kid") != kid:
        raise ValueError(f"kid {header.get('kid')!r}, expected {kid!r}")
    if kid is not None:
        checked.append("kid")
    signed = assertion.rsplit(".", 1)[0].encode()
    digest = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}[alg[2:]]
    try:
        if alg.startswith("ES"):
            size = {"ES256": 32, "ES384": 48}[alg]
            if not isinstance(public_key, ec.EllipticCurvePublicKey) or public_key.key_size != size * 8:
                raise ValueError(f"{alg} does not fit the registered key")
            if len(signature) != 2 * size:
                raise ValueError(f"signature is not {2 * size} bytes")
            der = encode_dss_signature(int.from_bytes(signature[:size], "big"), int.from_bytes(signature[size:], "big"))
            public_key.verify(der, signed, ec.ECDSA(digest))
        else:
            if not isinstance(public_key, rsa.RSAPublicKey):
                raise ValueError(f"{alg} does not fit the registered key")
            pad = padding.PSS(mgf=padding.MGF1(digest), salt_length=digest.digest_size) if alg.startswith("PS") \
                else padding.PKCS1v15()
            public_key.verify(signature, signed, pad, digest)
    except InvalidSignature:
        raise ValueError("bad signature")
    checked.append("signature")
    if claims.get("iss") != client_id or claims.get("sub") != client_id:
        raise ValueError(f"iss {claims.get('iss')!r} / sub {claims.get('sub')!r}, expected {client_id!r}")
    checked += ["iss", "sub"]
    if claims.get("aud") != audience:
        raise ValueError(f"aud {claims.get('aud')!r}, expected the issuer {audience!r}")
    checked.append("aud")
    iat, exp, now = claims.get("iat"), claims.get("exp"), time.time()
    if not isinstance(iat, int) or abs(now - iat) > 60:
        raise ValueError(f"iat {iat!r} not within 60 s of now")
    checked.append("iat")
    if not isinstance(exp, int) or exp <= now or exp - iat > 60:
        raise ValueError(f"exp {exp!r}: must be in the future and at most 60 s after iat {iat!r}")
    checked.append("exp")
    jti = claims.get("jti")
    if not isinstance(jti, str) or len(jti) < 16:
        raise ValueError("jti missing or too short")
    return header, claims, checked


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def int_b64u(n: int, length: int = 0) -> str:
    return b64u(n.to_bytes(length or (n.bit_length() + 7) // 8, "big"))


def fingerprint(value) -> str:
    return "sha256:" + hashlib.sha256(str(value).encode()).hexdigest()[:16]


class SigningKey:
    """One freshly generated signing key and its public JWK."""

    def __init__(self, alg: str, kid: str):
        self.alg, self.kid = alg, kid
        if alg == "ES256":
            self.key = ec.generate_private_key(ec.SECP256R1())
            nums = self.key.public_key().public_numbers()
            self.jwk = {"kty": "EC", "crv": "P-256", "x": int_b64u(nums.x, 32), "y": int_b64u(nums.y, 32)}
        else:
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            nums = self.key.public_key().public_numbers()
            self.jwk = {"kty": "RSA", "n": int_b64u(nums.n), "e": int_b64u(nums.e)}
        self.jwk.update({"kid": kid, "alg": alg, "use": "sig"})

    def sign(self, data: bytes) -> bytes:
        if self.alg == "ES256":
            r, s = decode_dss_signature(self.key.sign(data, ec.ECDSA(hashes.SHA256())))
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")  # JWS wants raw r||s, not DER
        if self.alg == "PS256":
            return self.key.sign(data, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32),
                                 hashes.SHA256())
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())


class State:
    """Everything the server remembers between requests, behind one lock."""

    def __init__(self, args, knobs: dict):
        self.args, self.k = args, knobs
        self.lock = threading.Lock()
        self.clock_offset = args.clock_offset
        self.keys = [SigningKey(args.alg, "key-1")]
        if knobs.get("jwks_rotate"):
            self.keys.append(SigningKey(args.alg, "key-2"))
        self.jwks_requests = 0
        self.devices: dict[str, dict] = {}      # device_code -> {polls, last_done, interval, ...}
        self.codes: dict[str, dict] = {}        # authorization code -> request data
        self.refresh_tokens: dict[str, dict] = {}  # live refresh token -> grant
        self.access_tokens: dict[str, str] = {}    # issued, unrevoked access token -> subject
        self.resource_calls = 0
        self.fault_hits = 0
        self.dpop_jtis: set[str] = set()           # every jti seen (never reusable)
        self.access_jkt: dict[str, str] = {}      # bound access token -> jkt
        self.access_acr: dict[str, str] = {}      # access token -> the acr of its sign-in
        self.nonces = {"token": None, "resource": None}  # the nonce each side currently accepts
        self.port = 0

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}" + self.k.get("issuer_suffix", "")

    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def now(self) -> float:
        """The provider's clock: this machine's, moved by --clock-offset."""
        return time.time() + self.clock_offset

    def signing_key(self) -> SigningKey:
        return self.keys[-1]  # with rotation, tokens are signed by the key the first JWKS lacks


class Handler(BaseHTTPRequestHandler):
    def date_time_string(self, timestamp=None):
        # The Date header follows the provider's clock (--clock-offset).
        return email.utils.formatdate(timestamp if timestamp is not None else self.state.now(), usegmt=True)

    protocol_version = "HTTP/1.1"
    server_version = "scripted-idp/1"
    state: State  # set on the subclass made in main()

    def log_message(self, fmt, *args):
        pass

    # ---------- plumbing ----------
    def _params(self) -> dict:
        query = urllib.parse.urlsplit(self.path).query
        params = {k: v[0] for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self._raw_body = body
        if body and (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
            pairs = urllib.parse.parse_qsl(body.decode(errors="replace"), keep_blank_values=True)
            names = [k for k, _ in pairs]
            # Parameters must not be repeated (RFC 6749 §3.1, RFC 9126 §2.1); `resource` may be (RFC 8707),
            # and so may a token exchange's `audience` (RFC 8693 §2.1).
            self._duplicates = sorted({k for k in names if names.count(k) > 1} - {"resource", "audience"})
            params.update({k: v[0] for k, v in urllib.parse.parse_qs(body.decode(errors="replace"),
                                                                     keep_blank_values=True).items()})
        return params

    def _record(self, params: dict, status, event: str = "", **extra):
        auth = self.headers.get("Authorization") or ""
        entry = {"t": self._t0, "t_done": round(time.time(), 6), "method": self.command,
                 "path": urllib.parse.urlsplit(self.path).path,
                 "params": {k: (fingerprint(v) if k in SECRET_FIELDS else v) for k, v in params.items()},
                 "headers": {"accept": self.headers.get("Accept"), "content_type": self.headers.get("Content-Type"),
                             "authorization": auth.split(" ", 1)[0] if auth else None,
                             "dpop": self.headers.get("DPoP") is not None},
                 "status": status, "event": event}
        if getattr(self, "_dpop_log", None) is not None:
            entry["dpop"] = self._dpop_log
        if getattr(self, "_assertion_log", None) is not None:
            entry["client_assertion"] = self._assertion_log
        entry.update(extra)
        if self.state.args.log:
            with self.state.lock, open(self.state.args.log, "a") as out:
                out.write(json.dumps(entry) + "\n")
        self._flush()

    def _send(self, status: int, body: bytes, content_type: str = "application/json", headers=None):
        # Held back until the request is logged (_record), so a test that reads the log right after
        # the client got its answer always finds the entry.
        self._pending = (status, body, content_type, headers)

    def _flush(self):
        pending, self._pending = getattr(self, "_pending", None), None
        if pending is None:
            return
        status, body, content_type, headers = pending
        if self.state.k.get("hostile_header"):
            # The body as a hostile server writes it: raw ESC/OSC/BEL bytes in a JSON string.
            body = body.replace(b"\\u001b", b"\x1b").replace(b"\\u0007", b"\x07")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if self.state.k.get("hostile_header"):
            # http.server writes header values as latin-1, so these code points go out as the bytes
            # of U+009B (C2 9B) and U+202E (E2 80 AE); C0 controls are refused by the header parser.
            self.send_header("X-Hostile", "a\xc2\x9b31mb\xe2\x80\xaec")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()

    def _json(self, status: int, obj, headers=None, form: bool = False):
        if form:
            body = urllib.parse.urlencode({k: v for k, v in obj.items() if v is not None}).encode()
            self._send(status, body, "application/x-www-form-urlencoded", headers)
        else:
            self._send(status, json.dumps(obj).encode(), "application/json", headers)

    def _wants_json(self) -> bool:
        return "application/json" in (self.headers.get("Accept") or "")

    def _fault_applies(self, where: str) -> bool:
        """True when this request is one the scenario's fault should hit (first --fault-count of them)."""
        st = self.state
        if not st.k.get("fault") or st.args.fault_on != where:
            return False
        with st.lock:
            if st.fault_hits >= st.args.fault_count:
                return False
            st.fault_hits += 1
            return True

    def _inject_fault(self, params: dict, where: str) -> None:
        st, fault = self.state, self.state.k["fault"]
        self._record(params, "fault", f"fault:{fault}", fault_on=where)
        if fault == "drop":
            body = b'{"access_token":"half-a-resp'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "400")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        elif fault == "stall":
            time.sleep(st.args.stall_seconds)
            self.close_connection = True
        elif fault == "status":
            headers = {"Retry-After": str(st.k["retry_after"])} if "retry_after" in st.k else {}
            self._send(st.k["fault_status"], b"<html><body>upstream trouble</body></html>", "text/html", headers)
        elif fault == "non-json":
            self._send(200, b"<html><body>Welcome to nginx!</body></html>", "text/html")
        elif fault == "oversized":
            filler = b"x" * (st.args.oversized_mb * 1024 * 1024)
            self._send(200, b'{"padding":"' + filler + b'"}')
        elif fault == "duplicate-keys":
            # Two different access tokens in one object: a strict parser must refuse it.
            self._send(200, b'{"access_token":"aaaa","token_type":"Bearer","expires_in":3600,'
                            b'"access_token":"bbbb","issuer":"x","issuer":"y"}')
        elif fault == "wrong-content-type":
            self._send(200, b"<not-json>", "application/json; charset=utf-8")

    # ---------- routes ----------
    def do_GET(self):
        self._route()

    def do_POST(self):
        self._route()

    def do_PUT(self):
        self._route()

    def do_DELETE(self):
        self._route()

    def __getattr__(self, name):
        # Any other method is routed too (RFC 9110 methods are case-sensitive tokens: `get`,
        # `M-SEARCH`), so a test sees the request line's method exactly as the client sent it.
        if name.startswith("do_"):
            return self._route
        raise AttributeError(name)

    def _route(self):
        self._t0 = round(time.time(), 6)
        self._pending = None
        self._dpop_log, self._dpop_jkt = None, None
        self._assertion_log = None
        self._duplicates = []
        path = urllib.parse.urlsplit(self.path).path
        params = self._params()
        # mtls-aliases: /mtls/... (the aliases) and /explicit/... (what an operator names) are
        # served like the ordinary endpoints; the log keeps the path that was asked for.
        route = path
        for prefix in ("/mtls/", "/explicit/"):
            if self.state.k.get("mtls_aliases") and path.startswith(prefix):
                route = path[len(prefix) - 1:]
        routes = {
            "/.well-known/openid-configuration": self._discovery_oidc,
            "/.well-known/oauth-authorization-server": self._discovery_8414,
            "/jwks": self._jwks,
            "/device_authorization": self._device_authorization,
            "/token": self._token,
            "/revoke": self._revoke,
            "/authorize": self._authorize,
            "/resource": self._resource,
            "/prm-resource": self._prm_resource,  # issue 35
            "/.well-known/oauth-protected-resource/prm-resource": self._prm_metadata,
            "/step-up": self._step_up,
            # fetch (issue 18): same- and cross-origin redirects, a large body, a dropped
            # connection, and an echo of what the client sent.
            "/redirect": self._redirect,
            "/large": self._large,
            "/drop": self._drop,
            "/echo": self._echo,
            # fetch -X (issue 22): any method; a DPoP proof's htm must be the request line's method.
            "/method": self._method,
            "/par": self._par,  # issue 16
            "/bc-authorize": self._backchannel_authentication,
            # streaming fetch (issue 18): a body cut off half-way by a reset.
            "/drop-mid-body": self._drop_mid_body,
            "/large-chunked": self._large_chunked,
            "/slow-body": self._slow_body,
        }
        handler = routes.get(route)
        if handler is None:
            self._send(404, b'{"error":"not_found"}')
            self._record(params, 404, "unknown-path")
            return
        if self._duplicates:
            self._json(400, {"error": "invalid_request", "error_description": "repeated parameter"})
            self._record(params, 400, "duplicate-parameters", duplicates=self._duplicates)
            return
        if self.state.k.get("pkjwt") and route in CLIENT_AUTH_PATHS and not self._client_assertion_check(params, route):
            return
        try:
            handler(params)
            self._flush()  # any answer a handler did not log
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _metadata(self) -> dict:
        st, base = self.state, self.state.base()
        meta = {
            "issuer": st.issuer,
            "authorization_endpoint": base + "/authorize",
            "token_endpoint": base + "/token",
            "device_authorization_endpoint": base + "/device_authorization",
            "revocation_endpoint": base + "/revoke",
            "jwks_uri": base + "/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_GRANT],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [st.args.alg],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "offline_access", "profile"],
        }
        if st.k.get("end_session"):
            meta["end_session_endpoint"] = base + "/end_session"
        if st.k.get("par"):  # issue 16
            meta["pushed_authorization_request_endpoint"] = base + "/par"
            if st.k.get("par_required"):
                meta["require_pushed_authorization_requests"] = True
        if st.k.get("dpop") and not st.k.get("dpop_unadvertised"):
            meta["dpop_signing_alg_values_supported"] = ["ES256"]
        if st.k.get("ciba"):
            meta["backchannel_authentication_endpoint"] = base + "/bc-authorize"
            meta["backchannel_token_delivery_modes_supported"] = st.k.get("ciba_modes", ["poll"])
            meta["grant_types_supported"].append(CIBA_GRANT)
        if st.k.get("pkjwt"):
            meta["token_endpoint_auth_methods_supported"] = ["private_key_jwt"]
            meta["token_endpoint_auth_signing_alg_values_supported"] = st.k.get("pkjwt_algs", PKJWT_ALGS)
        if st.k.get("mtls_aliases"):
            meta["token_endpoint_auth_methods_supported"].append("tls_client_auth")
            meta["mtls_endpoint_aliases"] = {name: base + "/mtls/" + path for name, path in [
                ("token_endpoint", "token"), ("revocation_endpoint", "revoke"),
                ("device_authorization_endpoint", "device_authorization")]}
        for name in st.k.get("discovery_omit", []):
            meta.pop(name, None)
        return meta

    def _client_assertion_check(self, params, path) -> bool:
        """private_key_jwt: verifies the request's client assertion (verify_client_assertion, then a
        fresh jti) and logs what was checked as "client_assertion"; answers 401 invalid_client and
        returns False when it fails."""
        st, k = self.state, self.state.k
        log = {"ok": False, "reason": None, "checked": []}
        self._assertion_log = log
        try:
            if params.get("client_assertion_type") != CLIENT_ASSERTION_TYPE or not params.get("client_assertion"):
                raise ValueError("no client assertion")
            if st.args.client_public_key is None:
                raise ValueError("the server was started without --client-public-key")
            from cryptography.hazmat.primitives.serialization import load_pem_public_key
            with open(st.args.client_public_key, "rb") as f:
                public_key = load_pem_public_key(f.read())
            client_id = params.get("client_id") or ""
            header, claims, checked = verify_client_assertion(
                params["client_assertion"], public_key, client_id, st.issuer, k.get("pkjwt_typ", "client-authentication+jwt"),
                st.args.client_key_id, k.get("pkjwt_algs", PKJWT_ALGS))
            log.update(checked=checked, alg=header.get("alg"), typ=header.get("typ"), kid=header.get("kid"),
                       iss=claims.get("iss"), sub=claims.get("sub"), aud=claims.get("aud"), jti=claims.get("jti"),
                       lifetime=claims["exp"] - claims["iat"])
            with st.lock:
                seen = st.__dict__.setdefault("assertion_jtis", set())
                replayed = claims["jti"] in seen
                seen.add(claims["jti"])
            if replayed:
                raise ValueError("jti reused")
            log["checked"].append("jti-fresh")
        except ValueError as e:
            log["reason"] = str(e)
            self._json(401, {"error": "invalid_client", "error_description": str(e)})
            self._record(params, 401, "client-assertion-refused")
            return False
        log["ok"] = True
        return True

    def _discovery_oidc(self, params):
        if self._fault_applies("discovery"):
            return self._inject_fault(params, "discovery")
        if self.state.k.get("oidc_discovery_404"):
            self._send(404, b"<html>not found</html>", "text/html")
            return self._record(params, 404, "discovery-404")
        self._json(200, self._metadata())
        self._record(params, 200, "discovery")

    def _discovery_8414(self, params):
        if self._fault_applies("discovery"):
            return self._inject_fault(params, "discovery")
        self._json(200, self._metadata())
        self._record(params, 200, "discovery-8414")

    def _jwks(self, params):
        st = self.state
        if self._fault_applies("jwks"):
            return self._inject_fault(params, "jwks")
        with st.lock:
            st.jwks_requests += 1
            n = st.jwks_requests
        # Rotation: the first answer has only the old key; later answers only the new one.
        keys = st.keys[:1] if st.k.get("jwks_rotate") and n == 1 else st.keys[-1:]
        self._json(200, {"keys": [k.jwk for k in keys]})
        self._record(params, 200, "jwks", jwks_request=n, kids=[k.kid for k in keys])

    def _device_authorization(self, params):
        st, k = self.state, self.state.k
        if self._fault_applies("device"):
            return self._inject_fault(params, "device")
        if k.get("outcome") == "invalid-client":
            self._json(401, {"error": "invalid_client", "error_description": "unknown client"})
            return self._record(params, 401, "invalid_client")
        if k.get("pkce_required") and params.get("code_challenge_method") != "S256":
            self._json(400, {"error": "invalid_request", "error_description": "Missing parameter: code_challenge"})
            return self._record(params, 400, "pkce-missing")
        device_code, user_code = secrets.token_urlsafe(24), k.get("user_code", "WDJB-MJHT")
        interval = st.args.interval
        expires_in = k.get("expires_in", st.args.expires_in)
        with st.lock:
            st.devices[device_code] = {"polls": 0, "last_done": None, "interval": interval,
                                       "deadline": time.time() + expires_in, "client_id": params.get("client_id"),
                                       "scope": params.get("scope", "openid"),
                                       "challenge": params.get("code_challenge"),
                                       "acr_values": params.get("acr_values"), "max_age": params.get("max_age")}
        uri = k.get("verification_uri", st.base() + "/device")
        body = {"device_code": device_code, "user_code": user_code, k.get("uri_field", "verification_uri"): uri}
        if k.get("complete", True):
            body["verification_uri_complete"] = k.get("verification_uri_complete", uri + "?user_code=" + user_code)
        if k.get("message"):
            body["message"] = f"To sign in, use a web browser to open the page {uri} and enter the code {user_code}."
        form = k.get("interval_form", "int")
        if form == "string":
            body["interval"] = str(interval)
        elif form == "zero":
            body["interval"] = 0
        elif form == "int":
            body["interval"] = interval
        if k.get("expires_form", "int") == "int":
            body["expires_in"] = expires_in
        as_form = k.get("device_form_unless_accept_json") and not self._wants_json()
        self._json(200, body, form=as_form)
        self._record(params, 200, "device_authorization", form_encoded=bool(as_form))

    def _tokens(self, grant: dict, with_id_token: bool, on_refresh: bool = False) -> dict:
        st, k = self.state, self.state.k
        access = secrets.token_urlsafe(32) + k.get("access_token_suffix", "")
        refresh = secrets.token_urlsafe(32)
        subject = (k.get("refresh_id_token_sub") if on_refresh else None) or k.get("id_token_sub", "scripted-user-1")
        jkt = grant.get("jkt")
        bound = jkt is not None and not k.get("dpop_bearer_answer")
        if bound:
            # A JWT access token (RFC 9068 shape) confirming the key (RFC 9449 §6.1).
            cnf = "A" * 43 if k.get("dpop_cnf_mismatch") else jkt
            key = st.signing_key()
            now = int(st.now())
            claims = {"iss": st.issuer, "sub": subject, "client_id": grant.get("client_id"), "iat": now,
                      "exp": now + st.args.at_ttl, "jti": secrets.token_urlsafe(16), "cnf": {"jkt": cnf}}
            signing_input = b64u(json.dumps({"alg": key.alg, "kid": key.kid, "typ": "at+jwt"}).encode()) + "." + \
                b64u(json.dumps(claims).encode())
            access = signing_input + "." + b64u(key.sign(signing_input.encode()))
        with st.lock:
            st.refresh_tokens[refresh] = grant
            st.access_tokens[access] = subject
            if bound:
                st.access_jkt[access] = jkt
            if self._acr(grant):
                st.access_acr[access] = self._acr(grant)
        body = {"access_token": access, "token_type": "DPoP" if bound else k.get("token_type", "Bearer"),
                "expires_in": st.args.at_ttl, "refresh_token": refresh, "scope": grant.get("scope", "openid")}
        if with_id_token and k.get("id_token", True):
            sub = k.get("refresh_id_token_sub") if on_refresh else None
            body["id_token"] = self._id_token(grant, access, sub=sub)
        return body

    def _acr(self, grant: dict):
        """The acr of a sign-in: the scenario's answer, else the first value asked for."""
        asked = (grant.get("acr_values") or "").split()
        return self.state.k.get("acr_answer", asked[0]) if asked else None

    def _id_token(self, grant: dict, access_token: str, sub=None) -> str:
        st, k = self.state, self.state.k
        key = st.signing_key()
        now = int(st.now())
        at_hash = b64u(hashlib.sha256(access_token.encode()).digest()[:16])
        claims = {"iss": st.issuer, "sub": sub or k.get("id_token_sub", "scripted-user-1"), "aud": k.get("id_token_aud", grant.get("client_id")),
                  "iat": now, "exp": now + 600 + k.get("id_token_exp_offset", 0), "at_hash": at_hash,
                  "name": "Scripted User"}
        if grant.get("nonce"):
            claims["nonce"] = grant["nonce"]
        if self._acr(grant):
            claims["acr"] = self._acr(grant)
        if grant.get("acr_values") or grant.get("max_age"):
            claims["auth_time"] = now - 5
        if grant.get("auth_req_id"):
            claims["urn:openid:params:jwt:claim:auth_req_id"] = grant["auth_req_id"]
        header = {"alg": key.alg, "kid": key.kid, "typ": "JWT"}
        signing_input = (b64u(json.dumps(header).encode()) + "." + b64u(json.dumps(claims).encode())).encode()
        signature = bytearray(key.sign(signing_input))
        if k.get("bad_signature"):
            signature[len(signature) // 2] ^= 0x01
        return signing_input.decode() + "." + b64u(bytes(signature))

    def _token_error(self, params, status, error, event, form=False, **extra):
        body = {"error": error}
        body.update(extra.pop("body_extra", {}))
        self._json(status, body, form=form)
        self._record(params, status, event, **extra)

    def _token(self, params):
        grant_type = params.get("grant_type", "")
        where = "refresh" if grant_type == "refresh_token" else "token"
        if self._fault_applies(where) or (where == "refresh" and self._fault_applies("token")):
            return self._inject_fault(params, where)
        if not self._dpop_token_check(params):
            return
        if grant_type == DEVICE_GRANT:
            return self._device_poll(params)
        if grant_type == CIBA_GRANT and self.state.k.get("ciba"):
            return self._ciba_poll(params)
        if grant_type == "refresh_token":
            return self._refresh(params)
        if grant_type == "authorization_code":
            return self._code_exchange(params)
        if grant_type == "client_credentials" and self.state.k.get("client_credentials"):
            return self._client_credentials(params)  # issue 16
        if grant_type == TOKEN_EXCHANGE_GRANT and self.state.k.get("token_exchange"):
            return self._token_exchange(params)  # issue 34
        self._token_error(params, 400, "unsupported_grant_type", "unsupported_grant_type")

    def _dpop_check(self, params, side: str, htm: str, htu: str, access_token=None) -> bool:
        """Verifies the request's proof, when it has one, and answers the request when it fails.
        True when the request may go on (no proof, or a good one; `self._dpop_jkt` is its key)."""
        st, k = self.state, self.state.k
        proof = self.headers.get("DPoP")
        if proof is None or not k.get("dpop"):
            return True
        self._dpop_log = {"htm": htm, "htu": htu, "ok": False, "reason": None, "jkt": None, "nonce": None}
        try:
            header, claims = verify_dpop_proof(proof, htm, htu, access_token)
        except ValueError as e:
            self._dpop_log["reason"] = str(e)
            return self._dpop_refuse(params, side, "invalid_dpop_proof", str(e))
        jkt = jwk_thumbprint(header["jwk"])
        self._dpop_log.update(jkt=jkt, nonce=claims.get("nonce"))
        with st.lock:
            replayed = claims["jti"] in st.dpop_jtis
            st.dpop_jtis.add(claims["jti"])
        if replayed:
            self._dpop_log["reason"] = "jti reused"
            return self._dpop_refuse(params, side, "invalid_dpop_proof", "jti reused")
        if k.get(f"dpop_nonce_{side}"):
            with st.lock:
                current = st.nonces[side]
                accepted = current is not None and claims.get("nonce") == current and not k.get("dpop_nonce_rotate")
                if not accepted:
                    st.nonces[side] = secrets.token_urlsafe(12)
                nonce = st.nonces[side]
            if not accepted:
                self._dpop_log["reason"] = "nonce required"
                return self._dpop_refuse(params, side, "use_dpop_nonce", "a fresh nonce is required", nonce=nonce)
        self._dpop_log["ok"] = True
        self._dpop_jkt = jkt
        return True

    def _dpop_refuse(self, params, side: str, error: str, why: str, nonce=None) -> bool:
        headers = {"DPoP-Nonce": nonce} if nonce else {}
        if side == "resource":
            headers["WWW-Authenticate"] = f'DPoP algs="ES256", error="{error}", error_description="{why}"'
            self._send(401, json.dumps({"error": error}).encode(), headers=headers)
            self._record(params, 401, "dpop-" + error)
        else:
            self._json(400, {"error": error, "error_description": why}, headers=headers)
            self._record(params, 400, "dpop-" + error)
        return False

    def _dpop_token_check(self, params) -> bool:
        return self._dpop_check(params, "token", "POST", self.state.base() + "/token")

    def _device_poll(self, params):
        st, k = self.state, self.state.k
        form = bool(k.get("token_form_unless_accept_json")) and not self._wants_json()
        now = time.time()
        with st.lock:
            dev = st.devices.get(params.get("device_code", ""))
            if dev is not None:
                dev["polls"] += 1
                poll = dev["polls"]
                # Early = sooner than the current interval after the previous response was sent.
                gap = None if dev["last_done"] is None else now - dev["last_done"]
                early = gap is not None and gap < dev["interval"] - 0.05
        if k.get("outcome") == "invalid-client":
            return self._token_error(params, 401, "invalid_client", "invalid_client")
        if dev is None or k.get("outcome") == "device-not-found":
            return self._token_error(params, 404 if k.get("outcome") == "device-not-found" else 400,
                                     "device_not_found" if k.get("outcome") == "device-not-found" else "invalid_grant",
                                     "device_not_found")
        extra = {"poll": poll, "early": early, "gap": None if gap is None else round(gap, 3),
                 "interval": dev["interval"]}

        def finish(status, body_or_error, event, **more):
            with st.lock:
                dev["last_done"] = time.time()
            if isinstance(body_or_error, dict):
                self._json(status, body_or_error, form=form)
                self._record(params, status, event, **extra, **more)
            else:
                body_extra = more.pop("body_extra", {})
                self._json(status, dict({"error": body_or_error}, **body_extra), form=form)
                self._record(params, status, event, **extra, **more)

        if dev.get("challenge") is not None or k.get("pkce_required"):
            verifier = params.get("code_verifier", "")
            if b64u(hashlib.sha256(verifier.encode()).digest()) != dev.get("challenge"):
                return finish(400, "invalid_grant", "pkce-mismatch")
        if poll in k.get("slow_down_polls", []):
            with st.lock:
                new = k.get("slow_down_new_interval")
                dev["interval"] = new if new else dev["interval"] + 5
            body_extra = {"interval": k["slow_down_new_interval"]} if k.get("slow_down_new_interval") else {}
            return finish(k.get("slowdown_status", 400), "slow_down", "slow_down", body_extra=body_extra)
        outcome = k.get("outcome", "approve")
        if outcome == "pending-forever":
            # Spring Authorization Server: still "pending" after the code's own deadline.
            return finish(k.get("pending_status", 400), "authorization_pending", "pending",
                          past_deadline=time.time() > dev["deadline"])
        approve_after = k.get("approve_after", st.args.approve_after)
        if poll < approve_after:
            return finish(k.get("pending_status", 400), "authorization_pending", "pending")
        if outcome == "deny":
            body_extra = {"error_description": k.get("deny_description", "The user declined.")} if k.get("message") else {}
            return finish(400, k.get("deny_error", "access_denied"), "denied", body_extra=body_extra)
        if outcome == "expire":
            return finish(400, "expired_token", "expired_token")
        if outcome == "invalid-grant":
            return finish(400, "invalid_grant", "invalid_grant")
        if outcome == "expire-then-invalid-grant":
            with st.lock:
                first, dev["expired_once"] = not dev.get("expired_once"), True
            return finish(400, "expired_token", "expired_token") if first else finish(400, "invalid_grant", "invalid_grant")
        with st.lock:
            if dev.get("used"):
                reused = True
            else:
                dev["used"], reused = True, False
        if reused:
            return finish(400, "invalid_grant", "device_code-reused")
        grant = {"client_id": dev["client_id"], "scope": dev["scope"], "jkt": self._dpop_jkt,
                 "acr_values": dev.get("acr_values"), "max_age": dev.get("max_age")}
        if dev.get("auth_req_id"):
            grant["auth_req_id"] = "someone-elses-request" if k.get("ciba_auth_req_id_swap") else dev["auth_req_id"]
        finish(200, self._tokens(grant, with_id_token=True), "token-issued")

    def _backchannel_authentication(self, params):
        """CIBA Core §7: client authentication (Basic or client_secret in the body) and a login_hint;
        the answer is an auth_req_id polled like a device code (the same bookkeeping)."""
        st, k = self.state, self.state.k
        if not k.get("ciba"):
            self._send(404, b'{"error":"not_found"}')
            return self._record(params, 404, "unknown-path")
        auth = self.headers.get("Authorization") or ""
        client_id = params.get("client_id")
        if auth.startswith("Basic "):
            client_id = urllib.parse.unquote(base64.b64decode(auth[6:]).decode().split(":", 1)[0])
        elif "client_secret" not in params:
            self._json(401, {"error": "invalid_client", "error_description": "client authentication is required"})
            return self._record(params, 401, "ciba-unauthenticated")
        if not params.get("login_hint"):
            self._json(400, {"error": "invalid_request", "error_description": "login_hint is required"})
            return self._record(params, 400, "ciba-no-hint")
        if k.get("ciba_unknown_user"):
            self._json(400, {"error": "unknown_user_id", "error_description": "no such user"})
            return self._record(params, 400, "ciba-unknown-user")
        auth_req_id = secrets.token_urlsafe(24)
        expires_in = k.get("expires_in", st.args.expires_in)
        with st.lock:
            st.devices[auth_req_id] = {"polls": 0, "last_done": None, "interval": st.args.interval,
                                       "deadline": time.time() + expires_in, "client_id": client_id,
                                       "scope": params.get("scope", "openid"), "challenge": None,
                                       "auth_req_id": auth_req_id}
        body = {"auth_req_id": auth_req_id, "expires_in": expires_in}
        if k.get("interval_form", "int") == "int":
            body["interval"] = st.args.interval
        self._json(200, body)
        self._record(params, 200, "backchannel_authentication", client_auth="basic" if auth else "post")

    def _ciba_poll(self, params):
        # The device bookkeeping, keyed by the auth_req_id (logged as a fingerprint, like a device code).
        return self._device_poll(dict(params, device_code=params.get("auth_req_id", "")))

    def _refresh(self, params):
        st, k = self.state, self.state.k
        token = params.get("refresh_token", "")
        with st.lock:
            grant = st.refresh_tokens.pop(token, None)  # one use: rotation
        if grant is None or k.get("refresh_empty_400"):
            # Glewlwyd's answer to a bad or replayed refresh token: 400, empty body.
            self._send(400, b"", "text/plain") if k.get("refresh_empty_400") else \
                self._json(400, {"error": "invalid_grant"})
            return self._record(params, 400, "refresh-refused")
        if grant.get("jkt") is not None and grant["jkt"] != self._dpop_jkt:
            # A bound refresh token needs a proof from the same key (RFC 9449 §5); it stays usable.
            with st.lock:
                st.refresh_tokens[token] = grant
            return self._token_error(params, 400, "invalid_dpop_proof", "refresh-wrong-key")
        if st.args.refresh_delay:
            # Logged on arrival too, so a test knows the refresh (and its lock) is in flight.
            self._record(params, None, "refresh-received")
            time.sleep(st.args.refresh_delay)
        self._json(200, self._tokens(grant, with_id_token=k.get("id_token_on_refresh", True), on_refresh=True))
        self._record(params, 200, "refreshed")

    def _authorize(self, params):
        st = self.state
        if st.k.get("par"):  # issue 16: a pushed request, or none at all when it is required
            params = self._authorize_pushed(params)
            if params is None:
                return
        redirect = params.get("redirect_uri", "")
        if not redirect.startswith("http://127.0.0.1:") and not redirect.startswith("http://localhost:"):
            self._send(400, b"bad redirect_uri", "text/plain")
            return self._record(params, 400, "authorize-bad-redirect")
        code = secrets.token_urlsafe(24)
        with st.lock:
            st.codes[code] = {"client_id": params.get("client_id"), "scope": params.get("scope", "openid"),
                              "nonce": params.get("nonce"), "challenge": params.get("code_challenge"),
                              "redirect_uri": redirect, "dpop_jkt": params.get("dpop_jkt"),
                              "acr_values": params.get("acr_values"), "max_age": params.get("max_age")}
        query = urllib.parse.urlencode({"code": code, "state": params.get("state", ""), "iss": st.issuer})
        self._send(302, b"", "text/plain", {"Location": redirect + ("&" if "?" in redirect else "?") + query})
        self._record(params, 302, "authorize")

    def _code_exchange(self, params):
        st = self.state
        with st.lock:
            grant = st.codes.pop(params.get("code", ""), None)
        if grant is None or grant["redirect_uri"] != params.get("redirect_uri"):
            return self._token_error(params, 400, "invalid_grant", "code-refused")
        verifier = params.get("code_verifier", "")
        if grant["challenge"] is None or b64u(hashlib.sha256(verifier.encode()).digest()) != grant["challenge"]:
            return self._token_error(params, 400, "invalid_grant", "pkce-mismatch")
        if grant.get("dpop_jkt") is not None and grant["dpop_jkt"] != self._dpop_jkt:
            # RFC 9449 §10: the code is bound to the dpop_jkt of the authorization request.
            return self._token_error(params, 400, "invalid_dpop_proof", "dpop_jkt-mismatch")
        grant["jkt"] = self._dpop_jkt
        self._json(200, self._tokens(grant, with_id_token=True))
        self._record(params, 200, "token-issued")

    # ---------- issue 16: PAR (RFC 9126) and client credentials (RFC 6749 §4.4) ----------
    def _par(self, params):
        st = self.state
        if not self._dpop_check(params, "par", "POST", st.base() + "/par"):
            return
        if "request_uri" in params or not params.get("client_id"):
            return self._token_error(params, 400, "invalid_request", "par-refused")
        if "par_answer" in st.k:
            self._json(201, st.k["par_answer"])
            return self._record(params, 201, "par-malformed")
        uri = "urn:ietf:params:oauth:request_uri:" + secrets.token_urlsafe(16)
        with st.lock:
            st.pushed = getattr(st, "pushed", {})
            st.pushed[uri] = dict(params)
        self._json(201, {"request_uri": uri, "expires_in": 60})
        self._record(params, 201, "pushed", request_uri=uri)

    def _authorize_pushed(self, params):
        """The pushed parameters for a request_uri (used once), or None after answering an error."""
        st = self.state
        uri = params.get("request_uri")
        if uri is None:
            if not st.k.get("par_required"):
                return params
            redirect = params.get("redirect_uri", "")
            self._send(302, b"", "text/plain", {"Location": redirect + "?" + urllib.parse.urlencode(
                {"error": "invalid_request", "error_description": "pushed authorization requests only",
                 "state": params.get("state", "")})})
            self._record(params, 302, "authorize-not-pushed")
            return None
        with st.lock:
            pushed = getattr(st, "pushed", {}).pop(uri, None)
        if pushed is None or pushed.get("client_id") != params.get("client_id"):
            self._send(400, b"unknown request_uri", "text/plain")
            self._record(params, 400, "authorize-unknown-request-uri")
            return None
        if st.k.get("par_expired"):
            query = urllib.parse.urlencode({"error": "invalid_request_uri", "error_description": "request_uri expired",
                                            "state": pushed.get("state", "")})
            self._send(302, b"", "text/plain", {"Location": pushed["redirect_uri"] + "?" + query})
            self._record(params, 302, "authorize-request-uri-expired")
            return None
        # RFC 9101 §5: pushed values may be repeated in the URL; they must then be the same.
        repeated = {"response_type", "scope", "redirect_uri", "prompt"}
        extra = sorted(n for n in set(params) - {"client_id", "request_uri"}
                       if n not in repeated or params[n] != pushed.get(n))
        scopes = pushed.get("scope", "").split()
        required = {"response_type", "scope", "redirect_uri"} | ({"prompt"} if "offline_access" in scopes else set())
        if st.k.get("par_oidc_strict") and "openid" in scopes and not required <= set(params):
            self._send(400, b"response_type, scope, redirect_uri (and prompt for offline_access) are required beside request_uri",
                       "text/plain")
            self._record(params, 400, "authorize-missing-oidc-parameters")
            return None
        if extra:
            self._send(400, b"parameters beside request_uri", "text/plain")
            self._record(params, 400, "authorize-extra-parameters", extra=extra)
            return None
        return pushed

    def _client_credentials(self, params):
        st = self.state
        auth = self.headers.get("Authorization") or ""
        client = None
        if auth.startswith("Basic "):
            user = base64.b64decode(auth[6:]).decode(errors="replace").split(":", 1)
            client = urllib.parse.unquote_plus(user[0]) if len(user) == 2 and user[1] else None
        elif params.get("client_secret"):
            client = params.get("client_id")
        if not client:
            return self._token_error(params, 401, "invalid_client", "client-credentials-unauthenticated")
        access = secrets.token_urlsafe(32)
        with st.lock:
            st.access_tokens[access] = client
            if self._dpop_jkt is not None:
                st.access_jkt[access] = self._dpop_jkt
        body = {"access_token": access, "token_type": "DPoP" if self._dpop_jkt else "Bearer",
                "expires_in": st.args.at_ttl, "scope": params.get("scope", "")}
        self._json(200, body)
        self._record(params, 200, "client-credentials-issued", client=client)

    def _token_exchange(self, params):
        """RFC 8693 §2: the subject must be an access token this server issued; the answer is an
        opaque access token (DPoP-bound when the request carried a proof). The log names the
        audiences, the actor token's type and fingerprint and the proof's key, never a token."""
        st = self.state
        subject = params.get("subject_token", "")
        with st.lock:
            known = subject in st.access_tokens
        if params.get("subject_token_type") != "urn:ietf:params:oauth:token-type:access_token" or not known:
            return self._token_error(params, 400, "invalid_request", "token-exchange-bad-subject")
        audiences = [v for k, v in urllib.parse.parse_qsl(self._raw_body.decode(errors="replace"), keep_blank_values=True) if k == "audience"]
        access = secrets.token_urlsafe(32)
        with st.lock:
            st.access_tokens[access] = st.access_tokens[subject]
            if self._dpop_jkt is not None:
                st.access_jkt[access] = self._dpop_jkt
        body = {"access_token": access, "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                "token_type": "DPoP" if self._dpop_jkt else "Bearer", "expires_in": st.args.at_ttl}
        self._json(200, body)
        self._record(params, 200, "token-exchanged", audiences=audiences, jkt=self._dpop_jkt,
                     actor_token_type=params.get("actor_token_type"),
                     actor=fingerprint(params["actor_token"]) if "actor_token" in params else None)

    def _revoke(self, params):
        if not self._dpop_check(params, "revoke", "POST", self.state.base() + "/revoke"):
            return
        with self.state.lock:
            self.state.refresh_tokens.pop(params.get("token", ""), None)
            self.state.access_tokens.pop(params.get("token", ""), None)
        self._send(200, b"")
        self._record(params, 200, "revoked", token_type_hint=params.get("token_type_hint"))

    def _resource(self, params):
        """A protected resource (RFC 6750): names the token's subject, or answers 401 with a challenge."""
        st = self.state
        if self.command != "GET":
            self._send(405, b'{"error":"method_not_allowed"}', headers={"Allow": "GET"})
            return self._record(params, 405, "resource-method")
        scheme, _, credential = (self.headers.get("Authorization") or "").partition(" ")
        with st.lock:
            st.resource_calls += 1
            call = st.resource_calls
            jkt = st.access_jkt.get(credential)
            subject = st.access_tokens.get(credential)
            # A bound token is only good as `DPoP`; a bearer one only as `Bearer`.
            if (jkt is not None) != (scheme.lower() == "dpop") or scheme.lower() not in ("bearer", "dpop"):
                subject = None
        challenge = 'Bearer realm="scripted-idp"'
        if jkt is not None and scheme.lower() == "dpop":
            if self.headers.get("DPoP") is None:
                self._dpop_log = {"ok": False, "reason": "no proof"}
                return self._dpop_refuse(params, "resource", "invalid_dpop_proof", "no proof")
            if not self._dpop_check(params, "resource", "GET", st.base() + "/resource", access_token=credential):
                return
            if self._dpop_jkt != jkt:
                # The check Glewlwyd's /userinfo leaves out: the proof's key must be the token's.
                self._dpop_log.update(ok=False, reason="proof key is not cnf.jkt")
                return self._dpop_refuse(params, "resource", "invalid_dpop_proof", "proof key is not the token's")
        if not scheme:
            # No credentials at all: a bare challenge, no error code (RFC 6750 §3.1).
            self._send(401, b'{"error":"unauthorized"}', headers={"WWW-Authenticate": challenge})
            return self._record(params, 401, "resource-unauthenticated", resource_call=call)
        if subject is None or (call == 1 and st.k.get("resource_rejects_first")) or st.k.get("resource_rejects_always"):
            why = "unknown or revoked token" if subject is None else "rejected by the scenario"
            headers = {"WWW-Authenticate": challenge + ', error="invalid_token", error_description="' + why + '"'}
            if st.k.get("resource_huge_nonce"):
                # http.server writes header values as latin-1: each \xff is one byte 0xFF on the wire.
                headers = {"WWW-Authenticate": 'DPoP error="invalid_token", algs="ES256"', "DPoP-Nonce": "\xff" * 8000}
            self._send(401, b'{"error":"invalid_token"}', headers=headers)
            return self._record(params, 401, "resource-rejected", resource_call=call, reason=why)
        self._json(200, {"resource": "scripted", "subject": subject})
        self._record(params, 200, "resource", resource_call=call, subject=subject)

    def _prm_resource(self, params):
        """A resource that names its metadata on every 401 (RFC 9728 §5.1), as the mcp SDK does."""
        st, k = self.state, self.state.k
        location = k.get("prm_location", st.base() + "/.well-known/oauth-protected-resource/prm-resource")
        subject = self._bearer_subject()
        if subject is None:
            challenge = 'Bearer error="invalid_token", error_description="Authentication required", resource_metadata="%s"' % location
            self._send(401, b'{"error":"invalid_token"}', headers={"WWW-Authenticate": challenge})
            return self._record(params, 401, "prm-unauthenticated")
        self._json(200, {"resource": "prm", "subject": subject})
        self._record(params, 200, "prm-resource", subject=subject)

    def _prm_metadata(self, params):
        st, k = self.state, self.state.k
        fill = lambda v: v.replace("{issuer}", st.issuer).replace("{base}", st.base())
        body = {"resource": fill(k.get("prm_resource", "{base}/prm-resource")),
                "authorization_servers": [fill(v) for v in k.get("prm_servers", ["{issuer}/"])],
                "scopes_supported": ["profile"], "bearer_methods_supported": ["header"], "resource_name": "Scripted\x1b[2J API"}
        self._json(200, body)
        self._record(params, 200, "prm-metadata")

    def _step_up(self, params):
        """RFC 9470 §3: 401 insufficient_user_authentication until the token's sign-in said acr mfa."""
        st, k = self.state, self.state.k
        scheme, _, credential = (self.headers.get("Authorization") or "").partition(" ")
        with st.lock:
            subject = st.access_tokens.get(credential)
            acr = st.access_acr.get(credential)
        if subject is None:
            self._send(401, b'{"error":"invalid_token"}', headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
            return self._record(params, 401, "step-up-unauthenticated")
        if acr != "mfa" or k.get("step_up_always"):
            challenge = 'Bearer error="insufficient_user_authentication", error_description="A stronger sign-in is required", ' \
                        'acr_values="mfa", max_age=300'
            self._send(401, b'{"error":"insufficient_user_authentication"}', headers={"WWW-Authenticate": challenge})
            return self._record(params, 401, "step-up-challenge", acr=acr)
        self._json(200, {"resource": "step-up", "subject": subject, "acr": acr})
        self._record(params, 200, "step-up", acr=acr)

    def _method(self, params):
        """Any method, case kept: a DPoP-bound token needs a proof whose `htm` is exactly the
        request line's method (RFC 9449 §4.3); answers the method it saw."""
        st = self.state
        scheme, _, credential = (self.headers.get("Authorization") or "").partition(" ")
        with st.lock:
            jkt = st.access_jkt.get(credential)
            subject = st.access_tokens.get(credential)
        if subject is None:
            self._send(401, b'{"error":"invalid_token"}', headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
            return self._record(params, 401, "method-rejected")
        if jkt is not None:
            if scheme.lower() != "dpop" or self.headers.get("DPoP") is None:
                self._dpop_log = {"ok": False, "reason": "no proof"}
                return self._dpop_refuse(params, "resource", "invalid_dpop_proof", "no proof")
            if not self._dpop_check(params, "resource", self.command, st.base() + "/method", access_token=credential):
                return
        self._json(200, {"method": self.command, "dpop": jkt is not None})
        self._record(params, 200, "method")

    def _bearer_subject(self):
        """The subject of a live access token sent as `Bearer`, or None."""
        scheme, _, credential = (self.headers.get("Authorization") or "").partition(" ")
        with self.state.lock:
            return self.state.access_tokens.get(credential) if scheme.lower() == "bearer" else None

    def _redirect(self, params):
        """302 to `?to=URL` (another origin) or to /resource; counts hops with `?hops=N`."""
        hops = int(params.get("hops", "1"))
        target = params.get("to") or ("/redirect?hops=%d" % (hops - 1) if hops > 1 else "/resource")
        self._send(302, b"moved", "text/plain", headers={"Location": target})
        self._record(params, 302, "redirect", location=target)

    def _large(self, params):
        """`?mib=N` MiB of bytes i % 251 (every byte value but 251..255, NUL and ESC among them)."""
        if self._bearer_subject() is None:
            self._send(401, b"", headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
            return self._record(params, 401, "large-rejected")
        size = int(float(params.get("mib", "5")) * 1024 * 1024)
        pattern = bytes(range(251))
        body = (pattern * (size // 251 + 1))[:size]
        self._send(200, body, "application/octet-stream")
        self._record(params, 200, "large", size=size)

    def _drop(self, params):
        """Reads the request and drops the connection (a TCP reset, as a crashed server or a cut
        link gives): the client sees ECONNRESET, a network failure."""
        self._record(params, 0, "dropped")
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()
        self.wfile.close()
        self.connection.close()

    def _drop_mid_body(self, params):
        """Promises `?mib=N` MiB (Content-Length), sends half of them, then resets the connection:
        the client has seen the head and part of the body when the link breaks."""
        size = int(float(params.get("mib", "4")) * 1024 * 1024)
        self._record(params, 200, "dropped-mid-body", size=size)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self.wfile.write(b"x" * (size // 2))
        self.wfile.flush()
        time.sleep(0.2)
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()
        self.wfile.close()
        self.connection.close()

    def _large_chunked(self, params):
        """`?mib=N` MiB like /large, chunked (no Content-Length): a limit is met only mid-stream."""
        size = int(float(params.get("mib", "5")) * 1024 * 1024)
        self._record(params, 200, "large-chunked", size=size)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        piece = bytes(range(251)) * 256
        sent = 0
        while sent < size:
            part = piece[:min(len(piece), size - sent)]
            self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            sent += len(part)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _slow_body(self, params):
        """Promises 2 MiB, sends 64 KiB at once, then the rest only after `?wait=S` (20) seconds: a
        transfer a signal can interrupt mid-body."""
        size, first = 2 * 1024 * 1024, 64 * 1024
        self._record(params, 200, "slow-body", size=size)
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self.wfile.write(b"s" * first)
        self.wfile.flush()
        time.sleep(float(params.get("wait", "20")))
        self.wfile.write(b"s" * (size - first))
        self.wfile.flush()

    def _echo(self, params):
        """Answers what it got: method, body, Content-Type and X-Test; `?status=N` sets the status."""
        subject = self._bearer_subject()
        status = int(params.get("status", "200")) if subject else 401
        extra = {"WWW-Authenticate": 'Bearer error="invalid_token"'} if subject is None else {"X-Echo": "yes"}
        raw = getattr(self, "_raw_body", b"")
        self._json(status, {"method": self.command, "body": raw.decode(errors="replace"),
                            "content_type": self.headers.get("Content-Type"), "x_test": self.headers.get("X-Test"),
                            "subject": subject}, headers=extra)
        self._record(params, status, "echo", body_length=len(raw))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", default="ok")
    ap.add_argument("--log")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--interval", type=int, default=1)
    ap.add_argument("--expires-in", type=int, default=30)
    ap.add_argument("--approve-after", type=int, default=2, help="the poll number that gets the token")
    ap.add_argument("--fault-on", default="token", choices=["device", "token", "refresh", "jwks", "discovery"])
    ap.add_argument("--fault-count", type=int, default=1, help="how many requests the fault hits before recovery")
    ap.add_argument("--stall-seconds", type=float, default=3600)
    ap.add_argument("--oversized-mb", type=int, default=8)
    ap.add_argument("--alg", default="ES256", choices=["ES256", "RS256", "PS256"])
    ap.add_argument("--at-ttl", type=int, default=3600)
    ap.add_argument("--refresh-delay", type=float, default=0, help="seconds a refresh waits before it answers")
    ap.add_argument("--clock-offset", type=float, default=0,
                    help="seconds the provider's clock is ahead of the local one (Date headers, token iat/exp)")
    ap.add_argument("--list", action="store_true", help="print the scenario names and exit")
    ap.add_argument("--client-public-key", help="private-key-jwt scenarios: the client's public key (PEM)")
    ap.add_argument("--client-key-id", help="private-key-jwt scenarios: the kid every assertion must carry")
    args = ap.parse_args()
    if args.list:
        print("\n".join(SCENARIOS))
        return
    if args.scenario not in SCENARIOS:
        sys.exit(f"scripted_idp: unknown scenario {args.scenario!r}; --list shows them")
    knobs = SCENARIOS[args.scenario]
    if args.log:
        open(args.log, "a").close()
    state = State(args, knobs)
    handler = type("BoundHandler", (Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    print(state.port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
