#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fault-injecting HTTP proxy for remote write, on loopback only.

It listens on 127.0.0.1 (data port) and forwards POSTs to --upstream
(VictoriaMetrics) while the mode is "pass". A control port takes
  GET /mode/NAME[?retry_after=S&hang=S&delay=S]   switch the fault
  GET /stats                              JSON counters
  GET /rejected                           the (labels, timestamp) of every
                                          sample in a request answered with
                                          an error status, one JSON per line
Modes:
  pass      forward, and decode every forwarded remote write 1.0 request
            (snappy + protobuf) to count samples and duplicate
            (series, timestamp) pairs
  refuse    the data port is closed: connections are refused (open
            keep-alive connections are cut at their next request)
  500, 503  read the request, answer that status
  429       answer 429 with Retry-After: S (default 2)
  hang      read the request, then wait S seconds (default 30) without
            answering, then cut the connection
  reset     read half the body, then reset the connection (RST)
  400       read the request, answer 400 (the sender must drop and count)
  NNN       any other status: read the request, answer NNN (a 3xx with a
            Location header)
  slow      forward as "pass" does, but answer only after S seconds
            (delay, default 1.8): a collector slower than the interval
Retry-After is sent as given (retry_after may be 0, or "past" for a date
in the past).
"""
import argparse
import json
import os
import socket
import struct
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sender"))
from wire_receiver import pb_fields, snappy_block_decode  # noqa: E402

state = {
    "mode": "pass", "retry_after": "2", "hang": 30.0, "delay": 1.8,
    "requests": {}, "forwarded": 0, "forwarded_samples": 0, "duplicates": 0,
    "decode_errors": 0, "upstream_errors": 0,
}
seen = set()
rejected = []  # (labels, timestamp) of the samples of requests answered with an error
lock = threading.Lock()
data_server = None
args = None


def count(mode):
    with lock:
        state["requests"][mode] = state["requests"].get(mode, 0) + 1


def decode_rw1(body):
    """(series key, timestamp) of every sample of a remote write 1.0 request."""
    raw = snappy_block_decode(body)
    out = []
    for f, wt, ts in pb_fields(raw):
        if f != 1 or wt != 2:
            continue
        labels, stamps = [], []
        for g, gwt, v in pb_fields(ts):
            if g == 1 and gwt == 2:
                kv = {h: x for h, _, x in pb_fields(v)}
                labels.append((kv.get(1, b""), kv.get(2, b"")))
            elif g == 2 and gwt == 2:
                for h, hwt, x in pb_fields(v):
                    if h == 2 and hwt == 0:
                        stamps.append(x)
        key = tuple(sorted(labels))
        out += [(key, t) for t in stamps]
    return out


class Data(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def read_body(self, limit=None):
        n = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(n if limit is None else min(n, limit)), n

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        with lock:
            mode = state["mode"]
            retry_after, hang = state["retry_after"], state["hang"]
        count(mode)
        if mode == "refuse":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode == "reset":
            n = int(self.headers.get("Content-Length", "0"))
            self.rfile.read(n // 2)
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        body, _ = self.read_body()
        if mode not in ("pass", "slow", "hang"):
            self.note_rejected(body)
        if mode == "hang":
            time.sleep(hang)
            self.close_connection = True
            return
        if mode in ("500", "503"):
            return self.answer(int(mode), b"fault proxy: %s\n" % mode.encode())
        if mode == "429":
            if retry_after == "past":
                retry_after = "Wed, 21 Oct 2015 07:28:00 GMT"
            return self.answer(429, b"fault proxy: slow down\n", [("Retry-After", str(retry_after))])
        if mode == "400":
            return self.answer(400, b"fault proxy: bad request (injected)\n")
        if mode.isdigit():
            status = int(mode)
            hdrs = [("Location", "http://127.0.0.1:9/elsewhere")] if 300 <= status < 400 else []
            return self.answer(status, b"fault proxy: %d (injected)\n" % status, hdrs)
        # pass
        if self.headers.get("Content-Encoding") == "snappy" and \
                self.headers.get("X-Prometheus-Remote-Write-Version", "").startswith("0.1"):
            try:
                pairs = decode_rw1(body)
                with lock:
                    state["forwarded_samples"] += len(pairs)
                    for p in pairs:
                        if p in seen:
                            state["duplicates"] += 1
                        seen.add(p)
            except Exception:  # noqa: BLE001 - counted, the test fails on it
                with lock:
                    state["decode_errors"] += 1
        req = urllib.request.Request(args.upstream + self.path, data=body, method="POST")
        for h in ("Content-Type", "Content-Encoding", "X-Prometheus-Remote-Write-Version", "User-Agent"):
            if self.headers.get(h):
                req.add_header(h, self.headers[h])
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, rbody = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, rbody = e.code, e.read()
        except OSError as e:
            with lock:
                state["upstream_errors"] += 1
            return self.answer(502, ("fault proxy: upstream: %s\n" % e).encode())
        with lock:
            state["forwarded"] += 1
            delay = state["delay"]
        if mode == "slow":
            time.sleep(delay)
        self.answer(status, rbody)

    def note_rejected(self, body):
        if self.headers.get("Content-Encoding") != "snappy":
            return
        try:
            pairs = decode_rw1(body)
        except Exception:  # noqa: BLE001 - counted, the test fails on it
            with lock:
                state["decode_errors"] += 1
            return
        with lock:
            for key, ts in pairs:
                rejected.append({"labels": {k.decode(): v.decode("utf-8", "surrogateescape")
                                            for k, v in key}, "ts": ts})


def start_data():
    global data_server
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    data_server = ThreadingHTTPServer(("127.0.0.1", args.port), Data)
    threading.Thread(target=data_server.serve_forever, daemon=True).start()


def stop_data():
    global data_server
    if data_server:
        data_server.shutdown()
        data_server.server_close()
        data_server = None


class Control(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        u = urlparse(self.path)
        if u.path.startswith("/mode/"):
            mode = u.path[len("/mode/"):]
            q = parse_qs(u.query)
            with lock:
                state["mode"] = mode
                if "retry_after" in q:
                    state["retry_after"] = q["retry_after"][0]
                if "delay" in q:
                    state["delay"] = float(q["delay"][0])
                if "hang" in q:
                    state["hang"] = float(q["hang"][0])
            if mode == "refuse":
                stop_data()
            elif data_server is None:
                start_data()
            body = b"ok\n"
        elif u.path == "/stats":
            with lock:
                body = json.dumps(state).encode()
        elif u.path == "/rejected":
            with lock:
                body = "".join(json.dumps(r) + "\n" for r in rejected).encode()
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    global args
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--control-port", type=int, required=True)
    ap.add_argument("--mode", default="pass")
    args = ap.parse_args()
    for u in (args.upstream,):
        if urlparse(u).hostname not in ("127.0.0.1", "localhost", "::1"):
            sys.exit("fault_proxy: loopback upstreams only")
    state["mode"] = args.mode
    if args.mode != "refuse":
        start_data()
    ctl = ThreadingHTTPServer(("127.0.0.1", args.control_port), Control)
    ctl.serve_forever()


if __name__ == "__main__":
    main()
