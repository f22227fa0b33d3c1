#!/usr/bin/env python3
"""cutrec.py IN OUT N - copy a dbtop recording up to and including its Nth
SAMPLE record (docs/recording.md framing: 16-byte file header, then records
of sync, length, type, payload, CRC). Replayed at --speed 0 the copy ends
on that sample, so a screen of that moment is the same at every run."""
import struct
import sys


def main():
    src, dst, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(src, 'rb').read()
    off, samples = 16, 0
    while off + 9 <= len(data) and samples < want:
        _, n = struct.unpack_from('<II', data, off)
        if data[off + 8] == 3:
            samples += 1
        off += 9 + n + 4
    if samples < want:
        sys.exit('%s has %d samples, not %d' % (src, samples, want))
    open(dst, 'wb').write(data[:off])


main()
