#!/usr/bin/env python3
"""Widen the stock `database` client backend of a fresh Glewlwyd database for mutual TLS.

Like prepare_db.py does for `sign_kid`: the backend silently drops client properties missing from
its data-format, and the stock one lacks `tls_client_auth_subject_dn` (RFC 8705 §2.1.2), so a
`tls_client_auth` client could never be matched by its certificate's subject. Run before the first
start, after prepare_db.py.

usage: prepare_db_mtls.py DB_PATH
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
        sys.exit("prepare_db_mtls: no 'database' client module instance; was the schema loaded?")
    params = json.loads(row[0])
    params.setdefault("data-format", {})["tls_client_auth_subject_dn"] = {"multiple": False, "read": True, "write": True}
    conn.execute("UPDATE g_client_module_instance SET gcmi_parameters = ? WHERE gcmi_name = 'database'",
                 (json.dumps(params),))
    conn.commit()


if __name__ == "__main__":
    main()
