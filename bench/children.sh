#!/usr/bin/env bash
# The kernel's cost of listing a process's children (the host reader's
# /proc/PID/task/PID/children, sources/host_read.c) with BENCH_CHILDREN
# children (2,500: a PostgreSQL postmaster at scale): a whole 8 KB read
# (the reader before) against the 1,537 bytes that its 128 tasks fill (now).
#   bench/children.sh
# Starts its children (each a bounded sleep) and ends them, by PID.
set -euo pipefail
exec python3 - "${BENCH_CHILDREN:-2500}" "${BENCH_READS:-200}" <<'PY'
import os, sys, time, signal
n, reads = int(sys.argv[1]), int(sys.argv[2])
kids = []
try:
    for _ in range(n):
        p = os.fork()
        if p == 0:
            time.sleep(120)
            os._exit(0)
        kids.append(p)
    me = os.getpid()
    path = f"/proc/{me}/task/{me}/children"
    def read(size):
        fd = os.open(path, os.O_RDONLY)
        got = b""
        while len(got) < size:
            b = os.read(fd, size - len(got))
            if not b:
                break
            got += b
        os.close(fd)
        return got
    res = {}
    for rnd in range(3):
        for size in (8191, 1536):
            t = time.perf_counter()
            for _ in range(reads):
                read(size)
            res.setdefault(size, []).append((time.perf_counter() - t) / reads * 1e6)
    a, b = min(res[8191]), min(res[1536])
    print(f"children: {n}; us per read (best of 3 x {reads}): 8 KB {a:.1f}, 1,536 B {b:.1f}; ratio {a / b:.1f}x")
finally:
    for p in kids:
        os.kill(p, signal.SIGKILL)
    for p in kids:
        os.waitpid(p, 0)
PY
