#!/usr/bin/env python3
"""Prepare a fresh Glewlwyd sqlite database before its first start.

The schema itself comes from Debian's dbconfig file (loaded by start-idp.sh with sqlite3).
Here we only widen the stock `database` client backend so that it keeps the `sign_kid`
client property: without it Glewlwyd silently drops the property and every client signs
with the plugin's default key, so PS256/ES256 ID tokens would never be exercised. It keeps
`pubkey` too (private_key_jwt), and any further PROPERTY named: the mTLS instance adds
`tls_client_auth_subject_dn` (RFC 8705 §2.1.2), which the stock backend also drops.

usage: prepare_db.py DB_PATH [PROPERTY...]
"""
import json
import sqlite3
import sys


def main() -> None:
    conn = sqlite3.connect(sys.argv[1])
    row = conn.execute(
        "SELECT gcmi_parameters FROM g_client_module_instance WHERE gcmi_name = 'database'"
    ).fetchone()
    if row is None:
        sys.exit("prepare_db: no 'database' client module instance; was the schema loaded?")
    params = json.loads(row[0])
    params.setdefault("data-format", {})["sign_kid"] = {"multiple": False, "read": True, "write": True}
    # private_key_jwt: the client's public key (PEM), named by the pkjwt plugin's client-pubkey-parameter;
    # then the properties asked for on the command line.
    for name in ["pubkey"] + sys.argv[2:]:
        params["data-format"][name] = {"multiple": False, "read": True, "write": True}
    conn.execute(
        "UPDATE g_client_module_instance SET gcmi_parameters = ? WHERE gcmi_name = 'database'",
        (json.dumps(params),),
    )
    conn.commit()


if __name__ == "__main__":
    main()
