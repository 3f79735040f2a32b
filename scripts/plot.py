#!/usr/bin/env python3
"""Draws the key panels of the dashboard into one PNG, from a Prometheus
query_range API, with gnuplot (Debian's gnuplot-nox), for machines without
Grafana:

  usage / memory.max  of the top limited cgroups        (percent)
  working set         of the top cgroups at one depth   (MiB)
  memory pressure     "some" share of the top cgroups   (percent of time)
  OOM kills           per host, from the _local counter (kills per window)

  plot.py --prom URL --out FILE.png [--start EPOCH] [--end EPOCH]
          [--step SECONDS] [--rate-window SECONDS] [--top N] [--depth N]
          [--host REGEX]

Reads the raw metrics (no recording rules needed). The cgroups of each panel
are ranked once, at the end of the window, then drawn over the window.
Gauges that cover a subtree are ranked among cgroups at one depth only
(--depth, default 1), so a parent is never drawn as a rival of its child;
ratios compare each cgroup with its own limit; OOM kills are summed over
memcg_oom_kill_local_total, so each kill counts once. A panel without data
(e.g. pressure on cgroup v1) says so. The PNG is written to FILE.tmp and
renamed, so a viewer never sees half a file. Prints one line: the file and
the number of series per panel. Exit 0 when the PNG was written.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


def api(prom, path, params):
    url = prom.rstrip("/") + path + "?" + urllib.parse.urlencode(params)
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:  # Prometheus says why in the body
        body = {"status": "HTTP %d" % e.code, "error": e.read().decode(errors="replace")}
    if body.get("status") != "success":
        raise RuntimeError("%s %s: %s" % (path, params.get("query"), body.get("error", body)))
    return body["data"]["result"]


def regex_escape(v):
    # a regex inside a PromQL string: two backslashes, one for each
    return re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\\\1", v)


def pick(prom, rank_expr, end):
    """(host, cgroup) pairs of an instant ranking query, best first."""
    res = api(prom, "/api/v1/query", {"query": rank_expr, "time": end})
    res.sort(key=lambda s: -float(s["value"][1]))
    return [(s["metric"].get("host", ""), s["metric"].get("cgroup", "")) for s in res]


def fetch(prom, expr, pairs, a, scale):
    """Range series of expr (with {SEL} for the label selector) for the chosen
    (host, cgroup) pairs, or for every series when pairs is None."""
    sel = 'host=~"%s"' % a.host
    if pairs is not None:
        if not pairs:
            return []
        sel += ', cgroup=~"%s"' % "|".join(sorted(set(regex_escape(c) for _, c in pairs)))
    res = api(prom, "/api/v1/query_range",
              {"query": expr.replace("{SEL}", "{%s}" % sel), "start": a.start, "end": a.end, "step": a.step})
    out = []
    for s in res:
        key = (s["metric"].get("host", ""), s["metric"].get("cgroup", ""))
        if pairs is not None and key not in pairs:
            continue  # the cgroup regex may match another host's cgroup too
        pts = [(float(t), float(v) * scale) for t, v in s["values"] if v not in ("NaN", "+Inf", "-Inf")]
        if pts:
            title = "%s %s" % key if pairs is not None else key[0]
            out.append((pairs.index(key) if pairs is not None else 0, title, pts))
    out.sort()
    return [(t, p) for _, t, p in out]


def oom_kills(prom, h, a):
    """Per host, the OOM kills counted so far in the window: the rises of each
    cgroup's memcg_oom_kill_local_total (a drop is a new cgroup of the same
    name: its value counts from 0), summed over the host's cgroups."""
    res = api(prom, "/api/v1/query_range", {"query": "memcg_oom_kill_local_total{%s}" % h,
                                            "start": a.start, "end": a.end, "step": a.step})
    steps = {}
    per_host = {}
    for s in res:
        host = s["metric"].get("host", "")
        prev = None
        for t, v in s["values"]:
            t, v = float(t), float(v)
            if prev is not None and v != prev:
                steps.setdefault(host, {}).setdefault(t, 0)
                steps[host][t] += v - prev if v > prev else v
            prev = v
        per_host.setdefault(host, set()).update(float(t) for t, _ in s["values"])
    out = []
    for host in sorted(per_host):
        n, pts = 0, []
        for t in sorted(per_host[host]):
            n += steps.get(host, {}).get(t, 0)
            pts.append((t, n))
        out.append((host, pts))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prom", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--start", type=float)
    ap.add_argument("--end", type=float)
    ap.add_argument("--step", type=float)
    ap.add_argument("--rate-window", type=int, default=60, help="seconds; at least 2 samples")
    ap.add_argument("--top", type=int, default=6)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--host", default=".+", help="regex of the hosts to draw")
    a = ap.parse_args()
    a.end = a.end or time.time()
    a.start = a.start or a.end - 3600
    if a.start >= a.end:
        a.start = a.end - 60
    a.step = a.step or max(1.0, round((a.end - a.start) / 300))
    h = 'host=~"%s"' % a.host
    depth = 'cgroup=~"(/[^/]+){%d}"' % a.depth
    w = "%ds" % a.rate_window
    window = "%ds" % max(a.rate_window, int(a.end - a.start))

    panels = []
    pairs = pick(a.prom, 'topk(%d, memcg_usage_bytes{%s} / (memcg_memory_max_bytes{%s} < +Inf))' % (a.top, h, h), a.end)
    panels.append(("Usage / memory.max, top %d limited cgroups" % a.top, "percent of memory.max",
                   fetch(a.prom, "memcg_usage_bytes{SEL} / memcg_memory_max_bytes{SEL}", pairs, a, 100),
                   "no cgroup with a memory.max (limit_in_bytes) set", 90))
    pairs = pick(a.prom, "topk(%d, memcg_working_set_bytes{%s, %s})" % (a.top, h, depth), a.end)
    panels.append(("Working set, top %d cgroups at depth %d" % (a.top, a.depth), "MiB",
                   fetch(a.prom, "memcg_working_set_bytes{SEL}", pairs, a, 1.0 / (1 << 20)),
                   "no memcg_working_set_bytes", None))
    pairs = pick(a.prom, "topk(%d, rate(memcg_pressure_some_seconds_total{%s, %s}[%s]))" % (a.top, h, depth, w), a.end)
    panels.append(("Memory pressure (some), top %d cgroups at depth %d, over %s" % (a.top, a.depth, w),
                   "percent of time stalled",
                   fetch(a.prom, "rate(memcg_pressure_some_seconds_total{SEL}[%s])" % w, pairs, a, 100),
                   "no memory.pressure (cgroup v1, or PSI off)", None))
    kills = oom_kills(a.prom, h, a)
    panels.append(("OOM kills since %s (each in the victim's cgroup): %d" %
                   (time.strftime("%H:%M:%S", time.localtime(a.start)), sum(p[-1][1] for _, p in kills)),
                   "kills", kills, "no memcg_oom_kill_local_total", None))

    utc_offset = time.localtime(a.end).tm_gmtoff  # gnuplot draws epoch seconds as UTC
    tmpdir = tempfile.mkdtemp(prefix="memcg-plot.")
    gp = ['set terminal pngcairo size 1600,1000 font ",10" noenhanced',
          'set output "%s.tmp"' % a.out,
          'set multiplot layout 2,2 title "memcg_bpf: %s .. %s"' %
          (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(a.start)), time.strftime("%H:%M:%S", time.localtime(a.end))),
          'set xdata time', 'set timefmt "%s"', 'set format x "%H:%M:%S"', 'set grid',
          'set key below Left reverse font ",8" maxrows 3', 'set style data lines',
          'set xtics %d' % max(1, (a.end - a.start) // 6)]
    counts = []
    for i, (title, ylabel, series, empty, threshold) in enumerate(panels):
        counts.append(len(series))
        top = max([v for _, pts in series for _, v in pts] + [0])
        gp += ['set title "%s"' % title, 'set ylabel "%s"' % ylabel, "unset label",
               "set yrange [0:%d]; set ytics 1" % (top + 1) if ylabel == "kills" and top < 10 else
               "set yrange [0:*]; set ytics autofreq",
               "set xrange [%d:%d]" % (a.start + utc_offset, a.end + utc_offset)]
        if not series:
            gp += ['set label 1 "no data: %s" at graph 0.5, 0.5 center' % empty, "set yrange [0:1]",
                   'plot 2 notitle lc rgb "white"']
            continue
        path = os.path.join(tmpdir, "panel%d.dat" % i)
        with open(path, "w") as f:
            for title_s, pts in series:
                f.write("# %s\n" % title_s)
                f.writelines("%d %g\n" % (t + utc_offset, v) for t, v in pts)
                f.write("\n\n")
        style = " with steps" if ylabel == "kills" else ""
        plots = ['"%s" index %d using 1:2%s title "%s" lw 2' % (path, j, style, t.replace('"', "'"))
                 for j, (t, _) in enumerate(series)]
        if threshold is not None:
            plots.append('%g title "%g%%" dt 2 lc rgb "red"' % (threshold, threshold))
        gp.append("plot " + ", ".join(plots))
    gp.append("unset multiplot")
    r = subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, capture_output=True)
    for f in os.listdir(tmpdir):
        os.unlink(os.path.join(tmpdir, f))
    os.rmdir(tmpdir)
    if r.returncode != 0 or not os.path.exists(a.out + ".tmp"):
        sys.stderr.write("plot: gnuplot failed: %s\n" % r.stderr.strip())
        return 1
    os.replace(a.out + ".tmp", a.out)
    print("plot: %s (series: usage/limit %d, working set %d, pressure %d, OOM kills %d)" % tuple([a.out] + counts))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, RuntimeError) as e:
        sys.stderr.write("plot: %s\n" % e)
        sys.exit(1)
