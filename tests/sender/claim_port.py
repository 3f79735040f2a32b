#!/usr/bin/env python3
"""Print a loopback TCP port that no one listens on and no test holds.

Usage: claim_port.py OWNER_PID

Ports come from below the kernel's ephemeral range
(net.ipv4.ip_local_port_range), so that no outgoing connection of this
machine (curl polling a receiver, collectd's sender) can take the port
between this check and the server's bind: a port handed out by bind(0) can
be. Each port handed out is recorded in a machine-wide claim file with the
test's PID, so two servers of one test, or of two tests run side by side,
never get the same port; claims of dead PIDs are dropped.
"""
import fcntl
import json
import os
import random
import socket
import sys

CLAIMS = "/tmp/memcg_bpf-ports.json"


def ephemeral_range():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        lo, hi = map(int, f.read().split())
    return lo, hi


def candidates():
    lo, hi = ephemeral_range()
    if lo - 10000 >= 2000:
        return range(10000, lo)
    if 65535 - hi >= 2000:
        return range(hi + 1, 65536)
    sys.exit(f"claim_port: the ephemeral range {lo}-{hi} leaves no room for test ports")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def bindable(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def main():
    owner = int(sys.argv[1])
    with open(CLAIMS + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(CLAIMS) as f:
                claims = {int(p): pid for p, pid in json.load(f).items()}
        except (OSError, ValueError):
            claims = {}
        claims = {p: pid for p, pid in claims.items() if alive(pid)}
        pool = list(candidates())
        random.shuffle(pool)
        for port in pool:
            if port not in claims and bindable(port):
                claims[port] = owner
                with open(CLAIMS + ".tmp", "w") as f:
                    json.dump(claims, f)
                os.replace(CLAIMS + ".tmp", CLAIMS)
                print(port)
                return
        sys.exit("claim_port: no free loopback port")


main()
