#!/usr/bin/env python3
"""Answer a CIBA request on the test Glewlwyd the way the person on their phone would.

The steps are the ones Glewlwyd's own pages perform for a signed-in user:
  1. sign in with the user's password (a session cookie),
  2. list the requests waiting for that user: GET /api/<plugin>/ciba_user_list,
  3. approve: consent to the request's scopes (PUT /api/auth/grant/<client_id>), then
     GET <connect_uri>&g_continue -> 302 whose target says ciba_message=complete;
     or deny: GET <cancel_uri> -> 302 whose target says ciba_message=cancelled.
With --binding-message, only a request showing exactly that message is answered.

usage: approve_ciba.py --issuer ISSUER [--deny] [--client-id C] [--binding-message M] [--wait S]
                       [--ca-file PEM] [--user U --password P]
Exit 0 when answered; 1 with a reason otherwise (nothing waiting after --wait seconds, refusals).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_session import BrowserSession, split_issuer  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--issuer", default=os.environ.get("LATCHKEY_IT_ISSUER_CIBA"))
    ap.add_argument("--ca-file", default=os.environ.get("LATCHKEY_IT_CA_FILE"))
    ap.add_argument("--user", default="alice")
    ap.add_argument("--password", default="alice-password")
    ap.add_argument("--client-id", help="answer only this client's request")
    ap.add_argument("--binding-message", help="answer only a request showing this message")
    ap.add_argument("--deny", action="store_true", help="cancel the request instead of approving it")
    ap.add_argument("--wait", type=float, default=20, help="seconds to wait for a request to appear")
    a = ap.parse_args()
    if not a.issuer:
        print("approve_ciba: --issuer (or LATCHKEY_IT_ISSUER_CIBA) is required", file=sys.stderr)
        return 2
    base, plugin = split_issuer(a.issuer)
    s = BrowserSession(ca_file=a.ca_file if a.issuer.startswith("https:") else None)
    r = s.request("POST", f"{base}/api/auth/", json_body={"username": a.user, "password": a.password})
    if r.status != 200:
        print(f"approve_ciba: sign-in failed: HTTP {r.status}", file=sys.stderr)
        return 1

    deadline = time.time() + a.wait
    request = None
    while request is None:
        r = s.request("GET", f"{base}/api/{plugin}/ciba_user_list")
        if r.status != 200:
            print(f"approve_ciba: ciba_user_list: HTTP {r.status} {r.body[:200]!r}", file=sys.stderr)
            return 1
        for entry in r.json() or []:
            if a.client_id and entry.get("client_id") != a.client_id:
                continue
            if a.binding_message is not None and entry.get("binding_message") != a.binding_message:
                continue
            request = entry
            break
        if request is None:
            if time.time() > deadline:
                print(f"approve_ciba: no request waiting for {a.user} after {a.wait}s", file=sys.stderr)
                return 1
            time.sleep(0.1)

    if a.deny:
        r = s.request("GET", request["cancel_uri"])
        if "ciba_message=cancelled" not in r.location:
            print(f"approve_ciba: denial not completed: HTTP {r.status} -> {r.location}", file=sys.stderr)
            return 1
        print(f"denied the request of {request.get('client_id')}")
        return 0
    scope = " ".join(request.get("scopes") or [])
    r = s.request("PUT", f"{base}/api/auth/grant/{request['client_id']}", json_body={"scope": scope})
    if r.status != 200:
        print(f"approve_ciba: consent failed: HTTP {r.status} {r.body[:200]!r}", file=sys.stderr)
        return 1
    r = s.request("GET", request["connect_uri"] + "&g_continue")
    if "ciba_message=complete" not in r.location:
        print(f"approve_ciba: approval not completed: HTTP {r.status} -> {r.location}", file=sys.stderr)
        return 1
    print(f"approved the request of {request['client_id']} (scope '{scope}', binding message "
          f"{request.get('binding_message')!r})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
