#!/usr/bin/env python3
"""A loopback HTTP server that counts what reaches it, for bgx fleet loadtest.

    python3 docs/examples/loadtest-server.py [--port 0] [--delay /v1/sync=20] [--fail /v1/feed=5]

It answers every request 200 with a small body, after --delay PATH=MS
milliseconds for that path; --fail PATH=N answers every Nth request of that
path 503. It says `port N` on stdout once listening. GET /__counts answers,
as JSON, per path: requests per wall-clock second (epoch seconds), methods,
body bytes received and the header names seen. On SIGINT or SIGTERM it
prints the same per path and second as a table and exits.
"""
import argparse, json, signal, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
PATHS = {}  # path -> {"seconds": {s: n}, "methods": {m: n}, "bodyBytes": n, "headers": {name: n}}


def seen(path, method, second, body, headers):
    with LOCK:
        p = PATHS.setdefault(path, {"seconds": {}, "methods": {}, "bodyBytes": 0, "headers": {}, "requests": 0})
        p["requests"] += 1
        p["seconds"][second] = p["seconds"].get(second, 0) + 1
        p["methods"][method] = p["methods"].get(method, 0) + 1
        p["bodyBytes"] += body
        for name in headers:
            p["headers"][name] = p["headers"].get(name, 0) + 1
        return p["requests"]


def handler(delays, failures):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: Locust's users reuse their connections

        def answer(self):
            second = int(time.time())
            path = self.path.split("?")[0]
            if path == "/__counts":
                with LOCK:
                    text = json.dumps({"paths": PATHS}, sort_keys=True).encode()
                return self.reply(200, text, "application/json")
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            n = seen(path, self.command, second, length, [k.lower() for k in self.headers.keys()])
            if path in delays:
                time.sleep(delays[path] / 1000)
            if path in failures and n % failures[path] == 0:
                return self.reply(503, b"unavailable\n", "text/plain")
            self.reply(200, b'{"ok":true}\n', "application/json")

        def reply(self, status, body, kind):
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = answer

        def log_message(self, *args):
            pass

    return Handler


def table():
    lines = []
    for path in sorted(PATHS):
        p = PATHS[path]
        if not p["seconds"]:
            continue
        first, last = min(p["seconds"]), max(p["seconds"])
        counts = [p["seconds"].get(s, 0) for s in range(first, last + 1)]  # seconds without a request too
        lines.append(f"{path}: {p['requests']} requests, {p['bodyBytes']} body bytes; per second from {time.strftime('%H:%M:%S', time.gmtime(first))} UTC:")
        lines.append("  " + " ".join(str(n) for n in counts))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", action="append", default=[], help="PATH=MS")
    parser.add_argument("--fail", action="append", default=[], help="PATH=N")
    a = parser.parse_args()
    delays = {k: float(v) for k, v in (d.split("=", 1) for d in a.delay)}
    failures = {k: int(v) for k, v in (d.split("=", 1) for d in a.fail)}
    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 1024  # the listen backlog: a spike opens hundreds of connections at once

    server = Server(("127.0.0.1", a.port), handler(delays, failures))

    def stop(*_):
        try:
            with LOCK:
                print(table(), flush=True)
        except OSError:
            pass  # nobody reads stdout any more
        threading.Thread(target=server.shutdown).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
