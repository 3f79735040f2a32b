#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A loopback receiver that checks the sender's wire bytes against the specs.

Listens on 127.0.0.1:PORT (0: any; the port is written to --port-file) and
accepts POSTs at /api/v1/write (remote write 1.0 and 2.0) and
/opentelemetry/v1/metrics (OTLP). For each request it checks:
  - headers: Content-Type, Content-Encoding, X-Prometheus-Remote-Write-Version,
    User-Agent (memcg_bpf/...), as the specs prescribe per format;
  - the snappy *block* format (decoded here from the format description, no
    stream identifier), gzip, zstd;
  - remote write 1.0: label names valid, unique and sorted, __name__ present,
    values valid UTF-8 and non-empty, one sample per series, timestamps in
    milliseconds (within a day of now), NaN only as the stale marker
    0x7ff0000000000002;
  - remote write 2.0: symbols[0] == "", no duplicate symbols, labels_refs even,
    in range, sorted by name, the same sample rules;
  - OTLP: names, attributes, time in ns, NO_RECORDED_VALUE points, Sum
    points with a start_time_unix_nano in (0, time], gauges without.
Behaviour per --script, one action per request in order, then "ok":
  ok | 500 (Retry-After: 1) | 429 | 400 | 415v2 (415 for 2.0, else ok) | nohdr (2xx without -Written)
Every request is recorded as one JSON line in --log.
With --tls-cert/--tls-key it speaks HTTPS; with --tls-client-ca it also asks
for a client certificate signed by that CA (mTLS) and records its CN. The
Authorization header is recorded as it came ("authorization").
"""
import argparse
import gzip
import json
import re
import ssl
import struct
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

STALE = 0x7FF0000000000002
LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")


def snappy_block_decode(data):
    """Snappy block format: varint length, then literal/copy elements."""
    pos, shift, n = 0, 0, 0
    while True:
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    out = bytearray()
    while pos < len(data):
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            ln = tag >> 2
            if ln >= 60:
                nb = ln - 59
                ln = int.from_bytes(data[pos:pos + nb], "little")
                pos += nb
            ln += 1
            out += data[pos:pos + ln]
            pos += ln
            continue
        if kind == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | data[pos]
            pos += 1
        elif kind == 2:
            ln = (tag >> 2) + 1
            off = int.from_bytes(data[pos:pos + 2], "little")
            pos += 2
        else:
            ln = (tag >> 2) + 1
            off = int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        if off == 0 or off > len(out):
            raise ValueError("snappy: bad copy offset")
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise ValueError("snappy: length %d, header said %d" % (len(out), n))
    return bytes(out)


def pb_fields(buf):
    """Yields (field, wiretype, value) of one protobuf message."""
    pos = 0

    def varint():
        nonlocal pos
        shift = v = 0
        while True:
            b = buf[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    while pos < len(buf):
        key = varint()
        f, wt = key >> 3, key & 7
        if wt == 0:
            yield f, wt, varint()
        elif wt == 1:
            yield f, wt, buf[pos:pos + 8]
            pos += 8
        elif wt == 2:
            ln = varint()
            yield f, wt, buf[pos:pos + ln]
            pos += ln
        elif wt == 5:
            yield f, wt, buf[pos:pos + 4]
            pos += 4
        else:
            raise ValueError("protobuf: wire type %d" % wt)


def packed_varints(b):
    out, pos = [], 0
    while pos < len(b):
        shift = v = 0
        while True:
            x = b[pos]
            pos += 1
            v |= (x & 0x7F) << shift
            shift += 7
            if not x & 0x80:
                break
        out.append(v)
    return out


class Checker:
    def __init__(self):
        self.errors = []
        self.series = []  # (labels dict, value bits, ts_ms)

    def err(self, msg):
        if len(self.errors) < 20:
            self.errors.append(msg)

    def sample(self, labels, b):
        value_bits, ts = 0, 0
        for f, wt, v in pb_fields(b):
            if f == 1 and wt == 1:
                value_bits = struct.unpack("<Q", v)[0]
            elif f == 2 and wt == 0:
                ts = v
        now_ms = time.time() * 1000
        if abs(ts - now_ms) > 86400e3:
            self.err("timestamp %d is not milliseconds near now" % ts)
        exp = (value_bits >> 52) & 0x7FF
        if exp == 0x7FF and value_bits & ((1 << 52) - 1) and value_bits != STALE:
            self.err("NaN %x that is not the stale marker" % value_bits)
        self.series.append((labels, value_bits, ts))

    def labels(self, pairs):
        names = [n for n, _ in pairs]
        if names != sorted(names) or len(set(names)) != len(names):
            self.err("labels not sorted/unique: %s" % names)
        if "__name__" not in names:
            self.err("no __name__ in %s" % names)
        for n, v in pairs:
            if not LABEL_NAME.match(n):
                self.err("bad label name %r" % n)
            if not v:
                self.err("empty value for %s" % n)
        return dict(pairs)

    def rw1(self, raw):
        for f, wt, ts in pb_fields(raw):
            if f != 1:
                self.err("WriteRequest field %d" % f)
                continue
            pairs, samples = [], []
            for g, _, v in pb_fields(ts):
                if g == 1:
                    lab = {h: x for h, _, x in pb_fields(v)}
                    try:
                        pairs.append((lab.get(1, b"").decode("utf-8"), lab.get(2, b"").decode("utf-8")))
                    except UnicodeDecodeError:
                        self.err("label not valid UTF-8: %r" % lab)
                elif g == 2:
                    samples.append(v)
            labels = self.labels(pairs)
            if len(samples) != 1:
                self.err("%d samples in a series" % len(samples))
            for s in samples:
                self.sample(labels, s)

    def rw2(self, raw):
        symbols, series = [], []
        for f, wt, v in pb_fields(raw):
            if f == 4:
                try:
                    symbols.append(v.decode("utf-8"))
                except UnicodeDecodeError:
                    self.err("symbol not valid UTF-8: %r" % v)
                    symbols.append("")
            elif f == 5:
                series.append(v)
            else:
                self.err("Request field %d" % f)
        if not symbols or symbols[0] != "":
            self.err("symbols[0] is not the empty string")
        if len(set(symbols)) != len(symbols):
            self.err("duplicate symbols")
        for ts in series:
            refs, samples, meta = [], [], None
            for g, wt, v in pb_fields(ts):
                if g == 1:
                    refs += packed_varints(v) if wt == 2 else [v]
                elif g == 2:
                    samples.append(v)
                elif g == 5:
                    meta = dict((h, x) for h, _, x in pb_fields(v))
            if len(refs) % 2 or any(r >= len(symbols) for r in refs):
                self.err("labels_refs odd or out of range: %s" % refs)
                continue
            labels = self.labels([(symbols[refs[i]], symbols[refs[i + 1]]) for i in range(0, len(refs), 2)])
            if meta is None or meta.get(1) not in (1, 2):
                self.err("metadata type missing for %s" % labels.get("__name__"))
            for s in samples:
                self.sample(labels, s)

    def otlp(self, raw):
        def attrs(kvs):
            out = []
            for kv in kvs:
                d = {f: v for f, _, v in pb_fields(kv)}
                val = {f: v for f, _, v in pb_fields(d.get(2, b""))}
                out.append((d[1].decode(), val.get(1, b"").decode("utf-8")))
            return out

        for _, _, rm in pb_fields(raw):
            res = [v for f, _, v in pb_fields(rm) if f == 1]
            rattrs = dict(attrs([v for f, _, v in pb_fields(res[0]) if f == 1])) if res else {}
            # the resource: one host's plugin (plugin/wire/otlp.c)
            if not rattrs.get("host.name") or not rattrs.get("service.instance.id") or \
                    rattrs.get("service.name") != "memcg_bpf":
                self.err("resource attributes %s: want host.name, service.instance.id, "
                         "service.name memcg_bpf" % rattrs)
            for f, _, sm in pb_fields(rm):
                if f != 2:
                    continue
                for g, _, m in pb_fields(sm):
                    if g != 2:
                        continue
                    md = {}
                    for h, _, v in pb_fields(m):
                        md.setdefault(h, []).append(v)
                    name = md[1][0].decode()
                    data = (md.get(5) or md.get(7))[0]
                    unit = md.get(3, [b""])[0].decode()
                    # a unit a receiver appending units to names finds there already, or an annotation
                    words = name.split("_")
                    want = "By" if "bytes" in words else "s" if "seconds" in words else "{...}"
                    if not (unit == want or want == "{...}" and len(unit) > 2 and unit[0] == "{" and unit[-1] == "}"):
                        self.err("%s: unit %r, want %s" % (name, unit, want))
                    for k, _, dp in pb_fields(data):
                        if k != 1:
                            continue
                        d = {}
                        for h, _, v in pb_fields(dp):
                            d.setdefault(h, []).append(v)
                        # semantic-convention attribute names back to the labels of the other formats
                        kv = attrs(d.get(7, []))
                        for k, _ in kv:
                            if k in OTLP_ATTRIBUTES.values():
                                self.err("%s: attribute %r not under its semantic-convention name" % (name, k))
                        pairs = [("__name__", name)] + [(OTLP_ATTRIBUTES.get(k, k), v) for k, v in kv]
                        labels = self.labels(sorted(pairs))
                        if labels.get("host") != rattrs.get("host.name"):
                            self.err("%s: attribute host %r is not the resource's host.name %r"
                                     % (name, labels.get("host"), rattrs.get("host.name")))
                        t = struct.unpack("<Q", d[3][0])[0]
                        flags = d.get(8, [0])[0]
                        if 4 in d:
                            bits = struct.unpack("<Q", d[4][0])[0]
                        elif flags & 1:
                            bits = STALE
                        else:
                            self.err("point without value or flag")
                            continue
                        if abs(t / 1e6 - time.time() * 1000) > 86400e3:
                            self.err("time_unix_nano %d is not ns near now" % t)
                        # a cumulative Sum (field 7) starts when the series was first seen
                        start = struct.unpack("<Q", d[2][0])[0] if 2 in d else 0
                        if 7 in md and not 0 < start <= t:
                            self.err("%s: start_time_unix_nano %d not in (0, %d]" % (name, start, t))
                        if 5 in md and start:
                            self.err("%s: a gauge point with start_time_unix_nano" % name)
                        self.series.append((labels, bits, t // 1000000))


# plugin/wire/otlp.c's attribute_names[]
OTLP_ATTRIBUTES = {"k8s.container.name": "container", "container.name": "container", "container.id": "container_id",
                   "k8s.namespace.name": "namespace", "k8s.pod.name": "pod", "k8s.pod.uid": "pod_uid",
                   "systemd.unit": "unit"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        srv = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        action = srv.script.pop(0) if srv.script else "ok"
        ctype = self.headers.get("Content-Type", "")
        enc = self.headers.get("Content-Encoding")
        ver = self.headers.get("X-Prometheus-Remote-Write-Version")
        ua = self.headers.get("User-Agent", "")
        c = Checker()
        rec = {"path": self.path, "action": action, "content_type": ctype, "encoding": enc,
               "version": ver, "user_agent": ua, "connection_reused": srv.last_peer == self.client_address,
               "authorization": self.headers.get("Authorization"), "tls": srv.tls, "client_cn": None}
        if srv.tls:
            cert = self.connection.getpeercert() or {}
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        rec["client_cn"] = v
        srv.last_peer = self.client_address
        if not ua.startswith("memcg_bpf/"):
            c.err("User-Agent %r" % ua)
        fmt = None
        if self.path == "/api/v1/write":
            if ctype == "application/x-protobuf;proto=io.prometheus.write.v2.Request":
                fmt = "rw2"
                if ver != "2.0.0":
                    c.err("2.0 with X-Prometheus-Remote-Write-Version %r" % ver)
            elif ctype == "application/x-protobuf":
                fmt = "rw1"
                if ver != "0.1.0":
                    c.err("1.0 with X-Prometheus-Remote-Write-Version %r" % ver)
            else:
                c.err("Content-Type %r" % ctype)
            if enc != "snappy":
                c.err("Content-Encoding %r (remote write is snappy)" % enc)
        elif self.path == "/opentelemetry/v1/metrics":
            fmt = "otlp"
            if ctype != "application/x-protobuf":
                c.err("Content-Type %r" % ctype)
        rec["format"] = fmt
        status, headers = 204, {}
        if action == "500":
            status, headers = 500, {"Retry-After": "1"}
        elif action == "429":
            status = 429
        elif action == "400":
            status = 400
        elif action == "415v2" and fmt == "rw2":
            status = 415
        try:
            if enc == "snappy":
                raw = snappy_block_decode(body)
            elif enc == "gzip":
                raw = gzip.decompress(body)
            elif enc == "zstd":
                raw = subprocess.run(["zstd", "-dc"], input=body, capture_output=True, check=True).stdout
            else:
                raw = body
            if status < 300:
                getattr(c, fmt)(raw)
        except Exception as e:  # noqa: BLE001 - any decoding failure is a finding
            c.err("decode: %s" % e)
        if fmt == "rw2" and status < 300 and action != "nohdr":
            headers["X-Prometheus-Remote-Write-Samples-Written"] = str(len(c.series))
            headers["X-Prometheus-Remote-Write-Histograms-Written"] = "0"
            headers["X-Prometheus-Remote-Write-Exemplars-Written"] = "0"
        rec["status"] = status
        rec["errors"] = c.errors
        rec["series"] = [[l, "%016x" % b, t] for l, b, t in c.series] if status < 300 else []
        with open(srv.log, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        reply = b"" if status < 300 else b"wire_receiver says %d\n" % status
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--script", default="")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    ap.add_argument("--tls-client-ca")
    args = ap.parse_args()
    srv = HTTPServer(("127.0.0.1", args.port), Handler)
    srv.tls = bool(args.tls_cert)
    if srv.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        if args.tls_client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(args.tls_client_ca)
        # a failed handshake raises an OSError in get_request(): the server goes on
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.script = [a for a in args.script.split(",") if a]
    srv.log = args.log
    srv.last_peer = None
    open(args.log, "w").close()
    with open(args.port_file + ".tmp", "w") as fh:
        fh.write(str(srv.server_address[1]))
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
