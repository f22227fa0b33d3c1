#!/usr/bin/env python3
"""listen_fuzz.py PORT SECONDS [WORKERS] - random, malformed, huge and slow
HTTP requests against dbtop --listen on 127.0.0.1:PORT for SECONDS.

Each worker loops over request kinds chosen at random: valid GET / HEAD of
/metrics and /healthz (the answer is checked), random bytes, mutated
request lines and headers, huge headers and URLs, thousands of headers,
bodies with wrong lengths and bad chunking, pipelined requests, requests
that trickle a byte at a time or never finish, resets in mid-request.
Prints one JSON object: requests sent, answers by status, connection
errors, valid requests answered wrongly, and the slowest valid answer."""
import json
import os
import random
import socket
import struct
import sys
import threading
import time

PORT = int(sys.argv[1])
SECONDS = float(sys.argv[2])
WORKERS = int(sys.argv[3]) if len(sys.argv) > 3 else 6

lock = threading.Lock()
stats = {"requests": 0, "status": {}, "no_answer": 0, "refused": 0, "bad_valid": 0,
         "valid": 0, "valid_max_s": 0.0, "kinds": {}}


def count(key, sub=None, n=1):
    with lock:
        if sub is None:
            stats[key] += n
        else:
            stats[key][sub] = stats[key].get(sub, 0) + n


def connect(timeout=2.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(("127.0.0.1", PORT))
    return s


def answer(s):
    """The status line's code, or None when the connection closed without one."""
    try:
        d = s.recv(65536)
    except OSError:
        return None
    if not d:
        return None
    line = d.split(b"\r\n", 1)[0].split(b" ")
    return line[1].decode(errors="replace") if len(line) > 1 else "garbage"


def reset(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def mutate(b, rnd):
    b = bytearray(b)
    for _ in range(rnd.randint(1, 8)):
        op = rnd.randint(0, 3)
        i = rnd.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] = rnd.randrange(256)
        elif op == 1:
            b[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16)))
        elif op == 2 and b:
            del b[i:i + rnd.randint(1, 8)]
        else:
            b[i:i] = rnd.choice([b"\r\n", b"\n", b"\0", b":", b" ", b"%", b"\xff", b"\r\n\r\n"])
    return bytes(b)


VALID = [b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
         b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text; version=1.0.0\r\n\r\n",
         b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
         b"GET /healthz HTTP/1.0\r\n\r\n"]


def k_valid(rnd):
    req = rnd.choice(VALID)
    t = time.monotonic()
    s = connect(timeout=8.0)
    s.sendall(req)
    st = answer(s)
    dt = time.monotonic() - t
    s.close()
    with lock:
        stats["valid"] += 1
        stats["valid_max_s"] = max(stats["valid_max_s"], dt)
        if st != "200":
            stats["bad_valid"] += 1
    return st


def k_random(rnd):
    s = connect()
    s.sendall(os.urandom(rnd.choice([1, 16, 512, 8192, 65536])))
    st = answer(s)
    s.close()
    return st


def k_mutated(rnd):
    s = connect()
    s.sendall(mutate(rnd.choice(VALID + [
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789",
        b"GET /metrics?x=%zz&y=\xff HTTP/1.1\r\nHost: x\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n",
        b"PUT /healthz HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"]), rnd))
    st = answer(s)
    s.close()
    return st


def k_huge(rnd):
    s = connect()
    what = rnd.randint(0, 3)
    if what == 0:
        req = b"GET /" + b"a" * rnd.choice([5000, 70000, 1000000]) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    elif what == 1:
        req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX: " + b"b" * rnd.choice([20000, 500000]) + b"\r\n\r\n"
    elif what == 2:
        req = b"GET /metrics HTTP/1.1\r\n" + b"".join(b"H%d: v\r\n" % i for i in range(rnd.choice([500, 5000]))) + b"\r\n"
    else:
        req = b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" + b"z" * 200000
    try:
        s.sendall(req)
    except OSError:
        pass
    st = answer(s)
    s.close()
    return st


def k_slow(rnd):
    """A request that trickles in, or never finishes, or is reset mid-way."""
    s = connect(timeout=15)
    req = rnd.choice(VALID)
    cut = rnd.randrange(len(req))
    how = rnd.randint(0, 2)
    try:
        for i in range(cut):
            s.sendall(req[i:i + 1])
            time.sleep(rnd.choice([0.01, 0.2, 1.0]))
            if how == 2 and rnd.random() < 0.2:
                reset(s)
                return "reset"
        if how == 0:
            s.sendall(req[cut:])
        st = answer(s)   # never finished: dropped at the time limit
    except OSError:
        st = None
    s.close()
    return st


def k_pipeline(rnd):
    s = connect()
    s.sendall(b"".join(rnd.choice(VALID).replace(b"HTTP/1.0", b"HTTP/1.1") for _ in range(rnd.randint(2, 50))))
    st = answer(s)
    s.close()
    return st


KINDS = [(k_valid, 4), (k_random, 2), (k_mutated, 4), (k_huge, 1), (k_slow, 1), (k_pipeline, 1)]


def worker(seed, end):
    rnd = random.Random(seed)
    pool = [k for k, w in KINDS for _ in range(w)]
    while time.monotonic() < end:
        kind = rnd.choice(pool)
        count("kinds", kind.__name__)
        try:
            st = kind(rnd)
        except ConnectionRefusedError:
            count("refused")
            time.sleep(0.05)
            continue
        except OSError:
            st = None
        count("requests")
        if st is None:
            count("no_answer")
        else:
            count("status", st)


def main():
    end = time.monotonic() + SECONDS
    ts = [threading.Thread(target=worker, args=(i, end), daemon=True) for i in range(WORKERS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(SECONDS + 60)
    print(json.dumps(stats, sort_keys=True))


main()
