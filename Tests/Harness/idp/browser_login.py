#!/usr/bin/env python3
"""Play the browser for the authorization-code flow on the test Glewlwyd.

Given the authorization URL the client printed, this opens it, signs in, consents, and then
follows the final redirect to the client's loopback redirect URI (so the client's listener
receives the code exactly as from a real browser). With --print-redirect it only prints the
redirect URL instead, for the `paste` flow.

usage: browser_login.py AUTH_URL [--ca-file PEM] [--user U --password P] [--print-redirect]
"""
import argparse
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_session import BrowserSession, query_of  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("auth_url")
    ap.add_argument("--ca-file", default=os.environ.get("LATCHKEY_IT_CA_FILE"))
    ap.add_argument("--user", default="alice")
    ap.add_argument("--password", default="alice-password")
    ap.add_argument("--print-redirect", action="store_true")
    a = ap.parse_args()
    s = BrowserSession(ca_file=a.ca_file if a.auth_url.startswith("https:") else None)
    base = a.auth_url.split("/api/", 1)[0]

    r = s.request("GET", a.auth_url)
    if r.status != 302 or "login.html" not in r.location:
        print(f"browser: authorization request refused: HTTP {r.status} -> {r.location} {r.body[:200]!r}",
              file=sys.stderr)
        return 1
    q = query_of(r.location)
    r = s.request("POST", f"{base}/api/auth/", json_body={"username": a.user, "password": a.password})
    if r.status != 200:
        print(f"browser: sign-in failed: HTTP {r.status}", file=sys.stderr)
        return 1
    r = s.request("PUT", f"{base}/api/auth/grant/{q['client_id']}", json_body={"scope": q.get("scope", "")})
    if r.status != 200:
        print(f"browser: consent failed: HTTP {r.status}", file=sys.stderr)
        return 1
    r = s.request("GET", q["callback_url"] + "&g_continue")
    redirect = r.location
    if r.status != 302 or not ("code=" in redirect or "error=" in redirect):
        print(f"browser: no redirect to the client: HTTP {r.status} -> {redirect}", file=sys.stderr)
        return 1
    if a.print_redirect:
        print(redirect)
        return 0
    # The loopback listener is plain HTTP on 127.0.0.1: hand it the code like a browser tab would.
    with urllib.request.urlopen(redirect, timeout=15) as resp:
        print(f"browser: redirect delivered, listener answered HTTP {resp.status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
