#!/usr/bin/env python3
"""striprec.py IN OUT TAG... - copy a dbtop recording without the SAMPLE
fields of the given tags (docs/recording.md: fields are u16 tag, u32
length, bytes; each record's CRC-32 is over length, type and payload), so
that a test can replay a recording as a dbtop that did not record those
fields would have written it (e.g. 28 29 30: no session lists)."""
import struct
import sys
import zlib


def strip(payload, tags):
    out, off = b'', 0
    while off + 6 <= len(payload):
        tag, n = struct.unpack_from('<HI', payload, off)
        if tag not in tags:
            out += payload[off:off + 6 + n]
        off += 6 + n
    return out


def main():
    src, dst, tags = sys.argv[1], sys.argv[2], {int(t) for t in sys.argv[3:]}
    data = open(src, 'rb').read()
    out, off = data[:16], 16
    while off + 9 <= len(data):
        sync, n = struct.unpack_from('<II', data, off)
        typ = data[off + 8]
        payload = data[off + 9:off + 9 + n]
        if typ == 3:
            payload = strip(payload, tags)
        body = struct.pack('<I', len(payload)) + bytes([typ]) + payload
        out += struct.pack('<I', sync) + body + struct.pack('<I', zlib.crc32(body) & 0xffffffff)
        off += 9 + n + 4
    open(dst, 'wb').write(out)


main()
