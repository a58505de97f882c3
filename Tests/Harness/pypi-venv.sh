#!/usr/bin/env bash
# Makes VENV hold PACKAGE==VERSION from PyPI, once: a venv that already has that version is left
# as it is. Shared by the start scripts of idpyoidc/, authlib/ and mcp/.
# usage: pypi-venv.sh VENV PACKAGE VERSION
set -euo pipefail
VENV=${1:?usage: pypi-venv.sh VENV PACKAGE VERSION}
PACKAGE=${2:?usage: pypi-venv.sh VENV PACKAGE VERSION}
VERSION=${3:?usage: pypi-venv.sh VENV PACKAGE VERSION}
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$PACKAGE') != '$VERSION')" 2>/dev/null; then
  echo "installing $PACKAGE $VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "$PACKAGE==$VERSION" >&2
fi
