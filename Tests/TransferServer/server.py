#!/usr/bin/env python3
"""The HTTP server the live transfer tests run on loopback, as a process of
its own (Python's standard http.server, so nothing is compiled for it), so
that nothing the test process does can starve it.

Routes: /file (1 MiB, whole or from `Range: bytes=N-`, with its RFC 9530
Repr-Digest), /gated (the same, but each response sends its first 300 000
bytes and holds the rest until the gate opens), /upload (PUT or POST: keeps
what it got), /missing (404), /norange (ignores Range), /unavailable (503),
/drop and /stall (the first response cut short: the connection closed, or
left silent), /trickle (16 bytes, one every quarter of a second).

It says on standard output `port N` once listening, `range R` (`-` for none)
for each request of the file, `upload METHOD HEADER SHA256 LENGTH` for each
upload, each before it answers; it reads `open` (the gate) and `sync`
(answered `synced` once every earlier line is out) on standard input, and
exits when standard input ends.
"""
import base64
import hashlib
import http.server
import os
import sys
import threading
import time

SIZE = 1 << 20
CONTENT = bytes(((i * 131 + 17) & 0xFF) for i in range(SIZE))
CUT = 300_000
DIGEST = base64.b64encode(hashlib.sha256(CONTENT).digest()).decode()

gate = threading.Event()
never = threading.Event()
out_lock = threading.Lock()


def say(line):
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as clients expect of a server today

    def log_message(self, *args):  # the test reads standard output: nothing else goes there
        pass

    def head(self, status, headers, length):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def answer(self, status, headers=(), body=b""):
        self.head(status, headers, len(body))
        self.wfile.write(body)

    def file(self, gated):
        rng = self.headers.get("Range")
        say("range %s" % (rng or "-"))
        first, status = 0, 200
        headers = [("Repr-Digest", "sha-256=:%s:" % DIGEST)]
        if rng and rng.startswith("bytes="):
            try:
                n = int(rng[6:].split("-")[0])
            except ValueError:
                n = None
            if n is not None:
                if n >= SIZE:
                    return self.answer(416)
                first, status = n, 206
                headers.append(("Content-Range", "bytes %d-%d/%d" % (n, SIZE - 1, SIZE)))
        body = CONTENT[first:]
        if not gated:
            return self.answer(status, headers, body)
        self.head(status, headers, len(body))
        split = min(len(body), CUT)
        self.wfile.write(body[:split])
        self.wfile.flush()
        gate.wait()
        self.wfile.write(body[split:])

    def cut_short(self, stall):
        if self.headers.get("Range") is not None:
            return self.file(False)
        say("range -")
        self.head(200, (), SIZE)
        self.wfile.write(CONTENT[:CUT])
        self.wfile.flush()
        if stall:
            never.wait()
        self.close_connection = True  # the rest never comes: the client sees the body end early

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/file":
            self.file(False)
        elif path == "/gated":
            self.file(True)
        elif path in ("/norange", "/unavailable"):
            say("range %s" % (self.headers.get("Range") or "-"))
            if path == "/norange":
                self.answer(200, (), CONTENT)
            else:
                self.answer(503)
        elif path in ("/drop", "/stall"):
            self.cut_short(path == "/stall")
        elif path == "/trickle":
            self.head(200, (), 16)
            for _ in range(16):
                self.wfile.write(b"t")
                self.wfile.flush()
                time.sleep(0.25)
        else:  # /missing, and anything else
            self.answer(404)

    def upload(self):
        if self.path.split("?")[0] != "/upload":
            return self.answer(404)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        say("upload %s %s %s %d" % (self.command, self.headers.get("x-bgx-test") or "-",
                                    hashlib.sha256(body).hexdigest(), len(body)))
        self.answer(201)

    do_PUT = upload
    do_POST = upload


def read_commands():
    for line in sys.stdin:
        line = line.strip()
        if line == "open":
            gate.set()
        elif line == "sync":
            say("synced")
    os._exit(0)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=read_commands, daemon=True).start()
say("port %d" % server.server_address[1])
server.serve_forever()
