#!/usr/bin/env python3
"""A counting loopback proxy in front of SeaweedFS's S3 port, for the publish tests.

    python3 s3_proxy.py PORT UPSTREAM_PORT

Forwards every request to 127.0.0.1:UPSTREAM_PORT unchanged (the Host header too, so SigV4
signatures still match) and counts what reached the store, by kind: PUT, POST, DELETE, HEAD,
GET and LIST (a GET of a bucket, or with list-type/prefix/delimiter in its query). Control
requests, under /__proxy/:
    GET  /__proxy/counts              the counts as JSON
    GET  /__proxy/requests            every request counted, "KIND /path", as a JSON list
    POST /__proxy/reset               counts back to zero
    POST /__proxy/fail?match=TEXT     every PUT whose path contains TEXT answers 500 (no TEXT: none)
    POST /__proxy/fail?match=TEXT&times=N   only the next N such PUTs do
    POST /__proxy/delay?ms=N          every PUT waits N ms before it is forwarded
"""
import http.client
import http.server
import json
import signal
import sys
import threading
import time
import urllib.parse

PORT, UPSTREAM = int(sys.argv[1]), int(sys.argv[2])
lock = threading.Lock()
counts = {}
requests = []
settings = {"fail": None, "times": None, "delay": 0.0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def control(self, path, query):
        global counts, requests
        if path in ("/__proxy/counts", "/__proxy/requests"):
            with lock:
                body = json.dumps(counts if path.endswith("counts") else requests).encode()
            return self.reply(200, body, [("Content-Type", "application/json")])
        if path == "/__proxy/reset":
            with lock:
                counts, requests = {}, []
        elif path == "/__proxy/fail":
            settings["fail"] = query.get("match", [None])[0]
            times = query.get("times", [None])[0]
            settings["times"] = int(times) if times else None
        elif path == "/__proxy/delay":
            settings["delay"] = float(query.get("ms", ["0"])[0]) / 1000
        self.reply(204)

    def forward(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        if url.path.startswith("/__proxy/"):
            return self.control(url.path, query)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        kind = self.command
        segments = [s for s in url.path.split("/") if s]
        if kind == "GET" and (len(segments) <= 1 or {"list-type", "prefix", "delimiter"} & set(query)):
            kind = "LIST"
        with lock:
            counts[kind] = counts.get(kind, 0) + 1
            requests.append(f"{kind} {url.path}")
        if self.command == "PUT":
            if settings["delay"]:
                time.sleep(settings["delay"])
            with lock:
                fails = bool(settings["fail"]) and settings["fail"] in url.path and settings["times"] != 0
                if fails and settings["times"]:
                    settings["times"] -= 1
            if fails:
                error = b"<?xml version=\"1.0\"?><Error><Code>InternalError</Code><Message>injected by s3_proxy.py</Message></Error>"
                return self.reply(500, error, [("Content-Type", "application/xml")])
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
        headers = {name: value for name, value in self.headers.items()}
        upstream.request(self.command, self.path, body=body if self.command in ("PUT", "POST") else None, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        passed = [(n, v) for n, v in answer.getheaders() if n.lower() not in ("content-length", "transfer-encoding", "connection")]
        self.send_response(answer.status)
        for name, value in passed:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data) if self.command != "HEAD" else answer.getheader("Content-Length") or 0))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        upstream.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward


# A test process may run with SIGTERM ignored, which would be inherited: take the default back.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
server.daemon_threads = True
print("ready", flush=True)
server.serve_forever()
