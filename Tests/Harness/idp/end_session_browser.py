#!/usr/bin/env python3
"""One browser (one cookie jar) for alice at the test Glewlwyd, driven line by line, so a test can
sign her in, approve a device, and later open an RP-initiated logout URL in that same browser and
see whether her session at Glewlwyd survived it.

Commands on stdin, one per line; each answers one JSON line on stdout:
  approve USER_CODE   sign in as alice and approve the device code (approve.py's steps)
                      -> {"approved": true|false, ...}
  session             is alice's session alive? GET /api/profile/ with her cookies
                      -> {"session_status": 200|401, "username": ...}
  open URL            GET URL with her cookies, no redirect followed
                      -> {"status": N, "location": "...", "body": "<first 200 bytes>"}
  confirm LOCATION    what Glewlwyd's login page does when alice confirms the logout it was sent
                      to (LOCATION: `login.html?…&sid=…&plugin=…&prompt=end_session`): DELETE
                      /api/<plugin>/session/<sid>, then DELETE /api/auth/ (her sign-in)
                      -> {"session_delete": N, "auth_delete": N}
End of input ends it. usage: end_session_browser.py --issuer ISSUER [--ca-file PEM]
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_session import BrowserSession, query_of, split_issuer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--issuer", required=True)
    ap.add_argument("--ca-file")
    ap.add_argument("--user", default="alice")
    ap.add_argument("--password", default="alice-password")
    a = ap.parse_args()
    base, plugin = split_issuer(a.issuer)
    s = BrowserSession(ca_file=a.ca_file if a.issuer.startswith("https:") else None)

    def say(obj):
        print(json.dumps(obj), flush=True)

    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "approve":
            r = s.request("GET", f"{base}/api/{plugin}/device", params={"code": argument})
            q = query_of(r.location)
            if r.status != 302 or "callback_url" not in q:
                say({"approved": False, "why": f"user code refused: {r.status} {r.location}"})
                continue
            r = s.request("POST", f"{base}/api/auth/", json_body={"username": a.user, "password": a.password})
            if r.status != 200:
                say({"approved": False, "why": f"sign-in {r.status}"})
                continue
            r = s.request("PUT", f"{base}/api/auth/grant/{q['client_id']}", json_body={"scope": q.get("scope", "")})
            if r.status != 200:
                say({"approved": False, "why": f"consent {r.status}"})
                continue
            r = s.request("GET", q["callback_url"] + "&g_continue")
            say({"approved": "prompt=deviceComplete" in r.location, "location": r.location})
        elif command == "session":
            r = s.request("GET", f"{base}/api/profile_list")
            username = None
            if r.status == 200:
                body = r.json()
                username = (body[0] if isinstance(body, list) and body else body or {}).get("username")
            say({"session_status": r.status, "username": username})
        elif command == "open":
            r = s.request("GET", argument)
            say({"status": r.status, "location": r.location, "body": r.body[:200].decode(errors="replace")})
        elif command == "confirm":
            q = query_of(argument)
            if q.get("prompt") != "end_session" or not q.get("sid") or not q.get("plugin"):
                say({"error": f"not an end_session page: {argument}"})
                continue
            r1 = s.request("DELETE", f"{base}/api/{q['plugin']}/session/{q['sid']}")
            r2 = s.request("DELETE", f"{base}/api/auth/")
            say({"session_delete": r1.status, "auth_delete": r2.status})
        else:
            say({"error": f"unknown command {command!r}"})


if __name__ == "__main__":
    main()
