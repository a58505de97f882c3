"""A tiny cookie-keeping HTTP client (standard library only) that never follows redirects.

Glewlwyd's login SPA is a sequence of REST calls tied together by a session cookie; the
harness scripts replay that sequence, and they need to see each 302 themselves.
"""
import http.cookiejar
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Response:
    def __init__(self, status: int, headers, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def location(self) -> str:
        return self.headers.get("Location", "") if self.headers else ""

    def json(self):
        return json.loads(self.body.decode() or "null")


class BrowserSession:
    """Keeps cookies across calls, like one browser tab."""

    def __init__(self, ca_file: str | None = None, timeout: float = 15.0):
        handlers = [urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()]
        if ca_file:
            handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=ca_file)))
        self._opener = urllib.request.build_opener(*handlers)
        self._timeout = timeout

    def request(self, method: str, url: str, json_body=None, form=None, params=None) -> Response:
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        data, headers = None, {}
        if json_body is not None:
            data, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(req, timeout=self._timeout) as r:
                return Response(r.status, r.headers, r.read())
        except urllib.error.HTTPError as e:
            # 3xx (redirects are not followed) and 4xx/5xx land here; both are answers, not failures.
            return Response(e.code, e.headers, e.read() if e.fp else b"")


def query_of(url: str) -> dict:
    """The query parameters of URL as a flat dict (first value wins)."""
    return {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(url).query).items()}


def split_issuer(issuer: str) -> tuple[str, str]:
    """'https://localhost:1/api/oidc' -> ('https://localhost:1', 'oidc')."""
    parts = urllib.parse.urlsplit(issuer)
    return f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/").rsplit("/", 1)[-1]


def admin_api(base: str, who: str, scopes, ca_file: str | None = None):
    """Signs in to Glewlwyd's admin REST API (the calls its admin UI makes) and creates `scopes`.
    Returns (session, api_url, call); call(method, path, body) ends the script (naming `who`) on
    any status but 200, since a half-configured IdP would only fail tests later and less clearly."""
    import sys
    s = BrowserSession(ca_file=ca_file)
    api = base.rstrip("/") + "/api"

    def call(method, path, body):
        r = s.request(method, api + path, json_body=body)
        if r.status != 200:
            sys.exit(f"{who}: {method} {path} -> HTTP {r.status} {r.body[:300]!r}")

    call("POST", "/auth/", {"username": "admin", "password": "password"})
    for name in scopes:
        call("POST", "/scope/", {"name": name, "display_name": name, "description": name,
                                 "password_required": False, "scheme": {}})
    return s, api, call
