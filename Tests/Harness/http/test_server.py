#!/usr/bin/env python3
"""Scripted HTTP/HTTPS server for the LatchkeyHTTP tests (stdlib only).

Listens on 127.0.0.1 (or --host), prints the bound port on the first stdout line, then serves one
scripted response per connection, chosen by the request path. Raw bytes are written so malformed
responses are possible. With --cert/--key it speaks TLS; --client-ca CA also requires a client certificate.

Paths:
  /length            200, Content-Length body, Date header
  /chunked           200, chunked body with a trailer
  /close             200, body delimited by connection close (no length)
  /echo              200, JSON describing the request (method, target, headers, body)
  /token             200, a token response (secrets the verbose log must not show)
  /oversize-body     200, Content-Length above 1 MiB
  /oversize-chunked  200, chunked body that grows past 1 MiB
  /oversize-headers  200 with a 40 KiB header block
  /many-headers      200 with 150 headers
  /truncated         Content-Length 100, 10 bytes, then close
  /garbage           a non-HTTP status line
  /hang              reads the request, never answers
  /slow-drip         dribbles a header byte every 0.5 s
  /cl-te             both Content-Length and Transfer-Encoding
  /redirect?n=K&to=URL  302 to URL (or to /length) 
  /count             200 with the number of requests this server has seen
  /peer              200 with the client certificate's subject CN, or "none"
A TLS ClientHello on a plain port gets "400 Bad Request" at once (as HTTP servers answer it).
"""
import argparse, json, os, socket, ssl, sys, threading, time
from urllib.parse import urlsplit, parse_qs

COUNT = 0
LOCK = threading.Lock()

def http_date():
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())

def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None
        data += chunk
        if data[:1] == b"\x16":
            # A TLS ClientHello on the plain port: answer 400 at once, as HTTP servers do.
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return None
        if len(data) > 65536:
            return None
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append([name, value.strip()])
    length = 0
    for name, value in headers:
        if name.lower() == "content-length":
            length = int(value)
    body = rest
    while len(body) < length:
        chunk = conn.recv(4096)
        if not chunk:
            break
        body += chunk
    return method, target, headers, body

def respond(conn, method, target, headers, body):
    global COUNT
    path = urlsplit(target).path
    query = parse_qs(urlsplit(target).query)
    def send(b):
        conn.sendall(b)
    if path == "/length":
        payload = b'{"ok":true}'
        send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: " + http_date().encode()
             + b"\r\nContent-Length: " + str(len(payload)).encode() + b"\r\nX-Dup: a\r\nX-Dup: b\r\n\r\n" + payload)
    elif path == "/chunked":
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n")
        for part in [b"hello ", b"chunked ", b"world"]:
            send(("%x;ext=1\r\n" % len(part)).encode() + part + b"\r\n")
            time.sleep(0.01)
        send(b"0\r\nX-Trailer: done\r\n\r\n")
    elif path == "/token":
        payload = b'{"access_token":"ATSECRET","token_type":"Bearer","expires_in":3600,"id_token":"IDSECRET"}'
        send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nContent-Length: "
             + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    elif path == "/close":
        send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody until close")
    elif path == "/echo":
        payload = json.dumps({"method": method, "target": target, "headers": headers,
                              "body": body.decode("latin-1")}).encode()
        send(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
             + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    elif path == "/oversize-body":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n" + b"x" * 65536)
    elif path == "/oversize-chunked":
        send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        part = b"y" * 65536
        for _ in range(40):
            send(b"10000\r\n" + part + b"\r\n")
        send(b"0\r\n\r\n")
    elif path == "/oversize-headers":
        send(b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-Fill-%d: %s\r\n" % (i, b"z" * 1000) for i in range(40))
             + b"Content-Length: 0\r\n\r\n")
    elif path == "/many-headers":
        send(b"HTTP/1.1 200 OK\r\n" + b"".join(b"X-H-%d: v\r\n" % i for i in range(150)) + b"Content-Length: 0\r\n\r\n")
    elif path == "/truncated":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
    elif path == "/garbage":
        send(b"HTTX/9 banana\r\n\r\n")
    elif path == "/hang":
        time.sleep(60)
    elif path == "/slow-drip":
        for b in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 200:
            send(bytes([b]))
            time.sleep(0.5)
    elif path == "/cl-te":
        send(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    elif path == "/redirect":
        to = query.get("to", ["/length"])[0]
        n = int(query.get("n", ["1"])[0])
        if n > 1:
            to = "/redirect?n=%d" % (n - 1) + ("&to=" + query["to"][0] if "to" in query else "")
        send(b"HTTP/1.1 302 Found\r\nLocation: " + to.encode() + b"\r\nContent-Length: 0\r\n\r\n")
    elif path == "/peer":
        # The client certificate's subject CN (servers started with --client-ca), or "none".
        cert = conn.getpeercert() if hasattr(conn, "getpeercert") else None
        names = [v for rdn in (cert or {}).get("subject", ()) for k, v in rdn if k == "commonName"]
        payload = (names[0] if names else "none").encode()
        send(b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    elif path == "/count":
        with LOCK:
            n = COUNT
        payload = str(n).encode()
        send(b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload)
    else:
        send(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")

def serve(conn, context):
    global COUNT
    try:
        if context is not None:
            conn = context.wrap_socket(conn, server_side=True)
        req = read_request(conn)
        if req is None:
            return
        with LOCK:
            COUNT += 1
        respond(conn, *req)
    except Exception as e:  # a refused handshake is expected in the TLS failure tests
        print("server: %s" % e, file=sys.stderr, flush=True)
    finally:
        try:
            conn.close()
        except Exception:
            pass

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--client-ca", help="require a client certificate issued by this CA")
    args = ap.parse_args()
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, 0))
    sock.listen(64)
    context = None
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        if args.client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args.client_ca)
    print(sock.getsockname()[1], flush=True)
    # The test process holds our stdin open; when it exits (even killed), stdin ends and so do we.
    def watchdog():
        while sys.stdin.buffer.read(1):
            pass
        os._exit(0)
    threading.Thread(target=watchdog, daemon=True).start()
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve, args=(conn, context), daemon=True).start()

if __name__ == "__main__":
    main()
