"""Lets Glewlwyd's `resource` plugin issue tokens for one more RFC 8707 resource indicator.

Usage: allow_resource.py --base http://127.0.0.1:GLEWLWYD_PORT [--plugin resource] RESOURCE [SCOPE ...]

Glewlwyd allows a `resource=` only when `resource-scope` lists it under a scope the request asks
for (measured: anything else is refused with invalid_target). The mcp resource listens on a port
the kernel picks, so its identifier is known only once it runs: this adds it, through the admin
API as the admin UI does (read the plugin, add, PUT it back, restart it), under each SCOPE (default:
profile).
Idempotent; any status but 200 ends the script with an error naming the call.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "idp"))
from browser_session import admin_api  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="where this script reaches Glewlwyd (not the proxy)")
    ap.add_argument("--plugin", default="resource")
    ap.add_argument("resource")
    ap.add_argument("scopes", nargs="*", default=["profile"])
    a = ap.parse_args()
    s, api, call = admin_api(a.base, "allow_resource", [])
    r = s.request("GET", f"{api}/mod/plugin/{a.plugin}")
    if r.status != 200:
        sys.exit(f"allow_resource: GET /mod/plugin/{a.plugin} -> HTTP {r.status}")
    plugin = r.json()
    params = dict(plugin["parameters"])
    table = {k: list(v) for k, v in (params.get("resource-scope") or {}).items()}
    for scope in a.scopes:
        if a.resource not in table.setdefault(scope, []):
            table[scope].append(a.resource)
    params["resource-scope"] = table
    params["resource-allowed"] = True
    call("PUT", f"/mod/plugin/{a.plugin}", {"module": plugin["module"], "name": plugin["name"],
                                             "display_name": plugin.get("display_name") or plugin["name"],
                                             "enabled": True, "parameters": params})
    # The running instance keeps the parameters it started with (measured: the PUT alone still
    # refused the new resource): restart it, as the admin UI's disable and enable do.
    call("PUT", f"/mod/plugin/{a.plugin}/disable", None)
    call("PUT", f"/mod/plugin/{a.plugin}/enable", None)


if __name__ == "__main__":
    main()
