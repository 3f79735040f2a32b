#!/usr/bin/env python3
"""Serves made-up memcg_bpf series in the Prometheus text format, for a
Prometheus that scrapes it with honor_labels (the series carry host and
cgroup as the plugin's remote write does): two hosts, one as cgroup v2 and
one as cgroup v1 ship them, under the names and scopes of the plugin's
default stat set (collectd-memcg_bpf(5)).

  synthetic_exporter.py --port PORT [--oom-after SCRAPES]

host "synth-v2":  /, /kubepods.slice, /kubepods.slice/pod1.slice (memory.max
  3 GiB), .../pod1.slice/c1.scope (memory.max 1 GiB, memory.high 900 MiB,
  working set 95% of memory.max, stalled 40% of the time, one OOM kill
  after --oom-after scrapes: Prometheus must have seen the counter at 0,
  as increase() needs), .../c2.scope (unlimited), /system.slice,
  /system.slice/db.service. Subtree counters (memory.events) rise on every
  ancestor, *_local only in c1.scope; "/" has memory.stat values only.
host "synth-v1":  /, /docker, /docker/abc (limit 512 MiB, one OOM kill at the
  same time): no memory_high, no pressure, no kernel, no subtree OOM counter.
The Kubernetes cgroups carry the identity labels of issue 13's contract
(pod1.slice: pod_uid, namespace "shop", pod "web-0"; c1.scope/c2.scope also
container_id and container "app"/"sidecar"), db.service a unit, and
/docker/abc on the v1 host a container_id and the docker name "redis" as
container, so that memcg_bpf.cadvisor.rules.yml has every case to map.
Both ship the sender's self metrics and the budget's counts (synth-v2 cuts
2,900 cgroups below one parent), and every cgroup's anon and file per NUMA
node, as NumaStat "anon" "file" ships them (label node; synth-v2 has two
nodes, each cgroup split as NUMA says, synth-v1 one), so that the NUMA
panels and cgroup:memcg_numa_remote_share:ratio have data, and the
kernel's allocation profile as AllocInfo true ships it (ALLOC: a few call
sites, one in a module, and the row site="other"; on synth-v2 the xfs
site grows by 1 MiB a second, so that the growth panels and
host:memcg_bpf_kernel_alloc_bytes:deriv6h have something to rank).
Counters grow with the time since start, so rate() and increase() have
something to measure. Listens on 127.0.0.1 only; stop it by its PID.
"""
import argparse
import http.server
import time

GIB = 1 << 30
MIB = 1 << 20
INF = float("inf")

# cgroup -> (usage, working set, memory.max, memory.high, pressure some
# share, pressure full share, pgfault/s, refault/s); None: not shipped
V2 = {
    "/": None,
    "/kubepods.slice": (2.4 * GIB, 2.0 * GIB, INF, INF, 0.42, 0.11, 3000, 900),
    "/kubepods.slice/pod1.slice": (2.0 * GIB, 1.8 * GIB, 3 * GIB, INF, 0.41, 0.10, 2500, 800),
    "/kubepods.slice/pod1.slice/c1.scope": (1.0 * GIB, 0.95 * GIB, 1 * GIB, 900 * MIB, 0.40, 0.10, 2000, 800),
    "/kubepods.slice/pod1.slice/c2.scope": (0.6 * GIB, 0.4 * GIB, INF, INF, 0.02, 0.0, 400, 0),
    "/system.slice": (0.8 * GIB, 0.5 * GIB, INF, INF, 0.05, 0.01, 600, 40),
    "/system.slice/db.service": (0.7 * GIB, 0.3 * GIB, 1 * GIB, INF, 0.05, 0.01, 500, 40),
}
V1 = {
    "/": None,
    "/docker": (900 * MIB, 700 * MIB, INF, None, None, None, 1200, 100),
    "/docker/abc": (500 * MIB, 480 * MIB, 512 * MIB, None, None, None, 1000, 100),
}
POD_UID = "0b5c1f3e-6d2a-4e7b-9a41-3c8d2f6e1a90"
# cgroup -> identity labels, as the plugin derives them on the node
LABELS = {
    "/kubepods.slice/pod1.slice": {"pod_uid": POD_UID, "namespace": "shop", "pod": "web-0"},
    "/kubepods.slice/pod1.slice/c1.scope": {"pod_uid": POD_UID, "container_id": "c1" * 32,
                                            "namespace": "shop", "pod": "web-0", "container": "app"},
    "/kubepods.slice/pod1.slice/c2.scope": {"pod_uid": POD_UID, "container_id": "c2" * 32,
                                            "namespace": "shop", "pod": "web-0", "container": "sidecar"},
    "/system.slice/db.service": {"unit": "db.service"},
    "/docker/abc": {"container_id": "ab" * 32, "container": "redis"},
}
# host -> cgroup -> the share of its anon and file on each NUMA node (the
# remote-node share is 1 - the largest); a cgroup not named: all on node 0
NUMA = {
    "synth-v2": {
        "/": (0.625, 0.375),
        "/kubepods.slice": (0.75, 0.25),
        "/kubepods.slice/pod1.slice": (0.875, 0.125),
        "/kubepods.slice/pod1.slice/c2.scope": (0.75, 0.25),
        "/system.slice": (0.5, 0.5),
        "/system.slice/db.service": (0.5, 0.5),
    },
    "synth-v1": {},
}
NODES = {"synth-v2": 2, "synth-v1": 1}
# host -> the kernel's allocation profile (AllocInfo true): (site, module
# or None, func, bytes, calls, bytes added per second), then the row
# "other" (the rest) as (bytes, calls)
ALLOC = {
    "synth-v2": ([
        ("mm/slub.c:3347", None, "alloc_slab_page", 900 * MIB, 230000, 0),
        ("fs/xfs/xfs_icache.c:93", "xfs", "xfs_inode_alloc", 300 * MIB, 307200, MIB),
        ("mm/percpu.c:512", None, "pcpu_mem_zalloc", 120 * MIB, 30000, 0),
        ("fs/kernfs/dir.c:665", None, "__kernfs_new_node", 40 * MIB, 300000, 0),
    ], (2 * GIB, 900000)),
    "synth-v1": ([
        ("mm/slub.c:3347", None, "alloc_slab_page", 300 * MIB, 76800, 0),
        ("kernel/fork.c:365", None, "alloc_thread_stack_node", 30 * MIB, 1900, 0),
        ("fs/kernfs/dir.c:665", None, "__kernfs_new_node", 20 * MIB, 150000, 0),
    ], (500 * MIB, 400000)),
}
VICTIM = {"synth-v2": "/kubepods.slice/pod1.slice/c1.scope", "synth-v1": "/docker/abc"}


def ancestors(cg):
    # the cgroup itself and every ancestor below "/"
    out = []
    while cg != "/":
        out.append(cg)
        cg = cg.rsplit("/", 1)[0] or "/"
    return out


def fmt(v):
    return "+Inf" if v == INF else "%.17g" % v


def series(host, tree, v2, elapsed, killed):
    lines = []

    def add(name, cg, value, node=None):
        extra = "".join(',%s="%s"' % kv for kv in sorted(LABELS.get(cg, {}).items()))
        if node is not None:
            extra += ',node="%d"' % node
        lines.append('%s{host="%s",cgroup="%s"%s} %s' % (name, host, cg, extra, fmt(value)))

    victims = ancestors(VICTIM[host]) if killed else []
    for cg, row in tree.items():
        # memory.stat values exist for every cgroup, "/" included
        anon = (row[1] if row else 3 * GIB) * 0.7
        add("memcg_anon_bytes", cg, anon)
        file = (row[0] if row else 4 * GIB) - anon
        add("memcg_file_bytes", cg, file)
        # NumaStat "anon" "file": the same bytes, node by node
        split = NUMA[host].get(cg, (1.0,) + (0.0,) * (NODES[host] - 1))
        for node, share in enumerate(split):
            add("memcg_numa_anon_bytes", cg, anon * share, node)
            add("memcg_numa_file_bytes", cg, file * share, node)
        add("memcg_shmem_bytes", cg, 8 * MIB)
        add("memcg_file_mapped_bytes", cg, 30 * MIB)
        add("memcg_file_dirty_bytes", cg, 2 * MIB)
        if v2:
            add("memcg_kernel_bytes", cg, 50 * MIB)
        pgfault, refault = (row[6], row[7]) if row else (5000, 1000)
        add("memcg_pgfault_total", cg, 1e6 + pgfault * elapsed)
        add("memcg_pgmajfault_total", cg, 1e3 + pgfault / 100 * elapsed)
        add("memcg_workingset_refault_file_total", cg, 1e5 + refault * elapsed)
        if row is None:
            continue  # the root: memory.stat only
        usage, ws, mmax, mhigh, some, full = row[:6]
        add("memcg_usage_bytes", cg, usage)
        add("memcg_working_set_bytes", cg, ws)
        add("memcg_memory_max_bytes", cg, mmax)
        add("memcg_memory_peak_bytes", cg, usage * 1.25)  # Stat "memory_peak" (v1: max_usage_in_bytes)
        add("memcg_oom_kill_local_total", cg, 1 if killed and cg == VICTIM[host] else 0)
        if v2:
            add("memcg_memory_high_bytes", cg, mhigh)
            add("memcg_swap_current_bytes", cg, 16 * MIB)  # Stat "swap_current" (v2 only)
            add("memcg_pressure_some_seconds_total", cg, 100 + some * elapsed)
            add("memcg_pressure_full_seconds_total", cg, 20 + full * elapsed)
            add("memcg_oom_local_total", cg, 1 if killed and cg == VICTIM[host] else 0)
            add("memcg_oom_kill_total", cg, 1 if cg in victims else 0)  # outside the default set
    n = int(elapsed)
    lines.append('memcg_bpf_sender_batches_sent_total{host="%s"} %d' % (host, n))
    lines.append('memcg_bpf_sender_samples_sent_total{host="%s"} %d' % (host, 100 * n))
    lines.append('memcg_bpf_sender_retries_total{host="%s"} 0' % host)
    for reason in ("queue_full", "rejected"):
        lines.append('memcg_bpf_sender_dropped_samples_total{host="%s",reason="%s"} 0' % (host, reason))
    lines.append('memcg_bpf_sender_queue_length{host="%s"} 0' % host)
    lines.append('memcg_bpf_sender_last_send_latency_seconds{host="%s"} 0.004' % host)
    # the cgroup budget's counts: synth-v2 has a crowded parent, synth-v1 none
    ncg = len(tree)
    cut = 2900 if v2 else 0
    lines.append('memcg_bpf_cgroups_seen{host="%s"} %d' % (host, ncg + cut))
    lines.append('memcg_bpf_cgroups_selected{host="%s"} %d' % (host, ncg + cut))
    lines.append('memcg_bpf_cgroups_kept{host="%s"} %d' % (host, ncg))
    lines.append('memcg_bpf_cgroups_cut{host="%s"} %d' % (host, cut))
    lines.append('memcg_bpf_cgroup_parents_cut{host="%s"} %d' % (host, 1 if cut else 0))
    # the sampler's health: synth-v2 runs bpf (the memcg kfuncs), synth-v1 text
    # by configuration; one walk failed on synth-v1 half a minute in
    lines.append('memcg_bpf_backend_info{host="%s",backend="%s",reason="%s"} 1'
                 % ((host, "bpf", "kfuncs") if v2 else (host, "text", "configured")))
    lines.append('memcg_bpf_sample_duration_seconds{host="%s"} %g' % (host, 0.012 if v2 else 0.35))
    lines.append('memcg_bpf_sample_cpu_seconds_total{host="%s"} %g' % (host, 0.01 * n))
    lines.append('memcg_bpf_sample_errors_total{host="%s"} %d' % (host, 0 if v2 or n < 30 else 1))
    lines.append('memcg_bpf_cgroups_skipped{host="%s"} 0' % host)
    # AllocInfo true: the top call sites (no module label for the kernel
    # itself) and "other", which has the site label alone
    sites, (other_bytes, other_calls) = ALLOC[host]
    for site, module, func, nbytes, calls, growth in sites:
        labels = 'host="%s",site="%s",%sfunc="%s"' % (host, site, 'module="%s",' % module if module else "", func)
        grown = int(growth * elapsed)
        lines.append("memcg_bpf_kernel_alloc_bytes{%s} %d" % (labels, nbytes + grown))
        lines.append("memcg_bpf_kernel_alloc_calls{%s} %d" % (labels, calls + grown // 1024))
    lines.append('memcg_bpf_kernel_alloc_bytes{host="%s",site="other"} %d' % (host, other_bytes))
    lines.append('memcg_bpf_kernel_alloc_calls{host="%s",site="other"} %d' % (host, other_calls))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--oom-after", type=int, default=5)
    a = ap.parse_args()
    start = time.monotonic()
    scrapes = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path != "/metrics":
                self.send_error(404)
                return
            elapsed = time.monotonic() - start
            scrapes[0] += 1
            killed = scrapes[0] > a.oom_after
            body = "\n".join(series("synth-v2", V2, True, elapsed, killed) +
                             series("synth-v1", V1, False, elapsed, killed)) + "\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    http.server.HTTPServer(("127.0.0.1", a.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
