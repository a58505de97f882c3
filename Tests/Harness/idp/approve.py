#!/usr/bin/env python3
"""Approve an RFC 8628 user code on the test Glewlwyd the way a person on a phone would.

The steps are the ones Glewlwyd's login page performs in a browser:
  1. open the verification page for the code -> 302 to login.html with a callback_url,
  2. sign in with the user's password,
  3. consent to the scopes the device asked for (space-separated),
  4. continue to callback_url -> 302 whose target says prompt=deviceComplete.

usage: approve.py USER_CODE --issuer ISSUER [--ca-file PEM] [--user U --password P] [--scope S]
Exit 0 when approved; 1 with a reason otherwise.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_session import BrowserSession, query_of, split_issuer  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("user_code")
    ap.add_argument("--issuer", default=os.environ.get("LATCHKEY_IT_ISSUER"))
    ap.add_argument("--ca-file", default=os.environ.get("LATCHKEY_IT_CA_FILE"))
    ap.add_argument("--user", default="alice")
    ap.add_argument("--password", default="alice-password")
    ap.add_argument("--scope", help="scopes to consent to; default: what the device asked for")
    a = ap.parse_args()
    if not a.issuer:
        print("approve: --issuer (or LATCHKEY_IT_ISSUER) is required", file=sys.stderr)
        return 2
    base, plugin = split_issuer(a.issuer)
    s = BrowserSession(ca_file=a.ca_file if a.issuer.startswith("https:") else None)

    r = s.request("GET", f"{base}/api/{plugin}/device", params={"code": a.user_code})
    q = query_of(r.location)
    if r.status != 302 or "callback_url" not in q:
        print(f"approve: user code refused: HTTP {r.status} -> {r.location}", file=sys.stderr)
        return 1
    r = s.request("POST", f"{base}/api/auth/", json_body={"username": a.user, "password": a.password})
    if r.status != 200:
        print(f"approve: sign-in failed: HTTP {r.status}", file=sys.stderr)
        return 1
    scope = a.scope if a.scope is not None else q.get("scope", "")
    r = s.request("PUT", f"{base}/api/auth/grant/{q['client_id']}", json_body={"scope": scope})
    if r.status != 200:
        print(f"approve: consent failed: HTTP {r.status} {r.body[:200]!r}", file=sys.stderr)
        return 1
    r = s.request("GET", q["callback_url"] + "&g_continue")
    if "prompt=deviceComplete" not in r.location:
        print(f"approve: device approval not completed: HTTP {r.status} -> {r.location}", file=sys.stderr)
        return 1
    print(f"approved {a.user_code} for client {q['client_id']} (scope '{scope}')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
