#!/usr/bin/env python3
"""check_screens.py FILE... - the rules every golden screen of
60_layout.sh keeps. A file is named REC-SCREEN-WxH.txt (SCREEN: overview,
rates, digests, locks, waits, tuning). Prints "ok - ..." or
"not ok - FILE: why" per file and rule; exit status 1 when any failed.

Rules:
  data      on the overview, a pane with data shows at least one data row
  statement the statement column keeps 30 columns at 80 wide
  cut       a line that runs into its pane's right edge ends in the cut mark
            (or is a sparkline, a rule or the border) unless it is whole: the
            same screen of the recording at a greater width shows nothing
            more after it, or what follows goes on on the next row (wrapped)
  blank     no pane holds more than 2 blank lines while another is cut
  border    two columns are separated by a border column

check_screens.py --tiles WIDTH [GOLDEN] < SCREEN - the overview on stdin
(a capture of a WIDTH-wide terminal) cut into its parts: "top" (the header
and the alerts above the tiles), each tile [1]-[5] (its title row and body,
with its columns and rows) and "bar" (the last row). Without GOLDEN, prints
the parts (a golden file); with it, compares part by part and prints
"ok - PART" or "not ok - PART: ..." with the lines that differ.
"""
import os
import re
import sys

MARK = ('\u2026', '...')
EDGE_OK = set('\u2026\u2502|\u2500-' + ''.join(chr(c) for c in range(0x2581, 0x2589)) + ' ')
TITLE = re.compile(r'\[([1-7])\] ')
CUT_TITLE = re.compile(r'\d+ of \d+ rows')
# the timeline above the key bar: start time, the span, "now" / "end"
TIMELINE = re.compile(r'^\d\d:\d\d:\d\d [\u00b7.FSLRDT#]+ (now|end) *$')


def tiles(lines, width):
    """The overview's tiles: (pane, x0, x1, title_row, body_rows)."""
    found = []
    for y, l in enumerate(lines):
        for m in TITLE.finditer(l):
            x = m.start()
            if x == 0 or l[x - 1] in ' \u2502|':
                found.append((int(m.group(1)), x, y))
    out = []
    for i, (p, x, y) in enumerate(found):
        # the column's right edge: the next border to the right, else the width
        x1 = width
        for (_, x2, _) in found:
            if x2 > x:
                x1 = min(x1, x2 - 1)
        below = [yy for (_, xx, yy) in found if xx == x and yy > y]
        # the key bar (or the timeline above it) ends the last
        bottom = len(lines) - 2 if len(lines) > 2 and TIMELINE.match(lines[-2]) else len(lines) - 1
        end = min(below) if below else bottom
        out.append((p, x, x1, y, [lines[k][x:x1] for k in range(y + 1, end)]))
    return out


def wider(path, rec, screen, width):
    """The lines of the same recording's screen at greater widths."""
    d = os.path.dirname(path)
    out = []
    for f in sorted(os.listdir(d)):
        m = re.match(r'(.+)-(overview|rates|digests|locks|waits|tuning|sessions|events|help)-(\d+)x(\d+)\.txt$', f)
        if m and m.group(1) == rec and m.group(2) == screen and int(m.group(3)) > width:
            out += open(os.path.join(d, f), encoding='utf-8').read().split('\n')
    return out


def cut_unmarked(seg, nxt, others):
    """True when seg (a line reaching its edge, no mark) was cut: a wider
    screen goes on after it, and not on the next row."""
    s = seg.strip()
    for l in others:
        i = l.find(s)
        if i < 0:
            continue
        cont = l[i + len(s):].split('\u2502')[0]
        if not cont.strip():
            continue
        word = cont.split()[0].rstrip('\u2026')
        if cont[0] == ' ' and nxt.lstrip(' \u2502\u251c\u2514|`-').startswith(word):
            continue
        return True
    return False


def check(path):
    name = os.path.basename(path)[:-4]
    m = re.match(r'(.+)-(overview|rates|digests|locks|waits|tuning|sessions|events|help)-(\d+)x(\d+)$', name)
    if not m:
        return ['not ok - %s: not named REC-SCREEN-WxH' % name]
    rec, screen, width = m.group(1), m.group(2), int(m.group(3))
    others = wider(path, rec, screen, width)
    lines = [l.ljust(width) for l in open(path, encoding='utf-8').read().split('\n')]
    lines = lines[:int(m.group(4))]
    res = []
    bad = []

    def rule(what, ok, why=''):
        res.append(('ok - %s: %s' % (name, what)) if ok else ('not ok - %s: %s: %s' % (name, what, why)))

    ts = tiles(lines, width) if screen == 'overview' else []
    # border: a tile beside another starts right after a border column
    for (p, x, x1, y, body) in ts:
        if x > 0:
            col = [lines[k][x - 1] for k in range(y, y + 1 + len(body))]
            if any(c not in '\u2502|' for c in col):
                bad.append('pane %d at column %d has no border beside it' % (p, x))
    rule('border', not bad, '; '.join(bad))
    # cut: a line that reaches its pane's right edge ends in the mark
    bad = []
    spans = [(x, x1, y + 1, y + 1 + len(b)) for (_, x, x1, y, b) in ts] or [(0, width, 1, len(lines) - 1)]
    for (x0, x1, y0, y1) in spans:
        for k in range(y0, y1):
            seg = lines[k][x0:x1].rstrip()
            if len(seg) < x1 - x0 or not seg:
                continue
            if seg.endswith(MARK) or seg[-1] in EDGE_OK:
                continue
            nxt = lines[k + 1][x0:x1] if k + 1 < len(lines) else ''
            if not cut_unmarked(seg, nxt, others):
                continue
            bad.append('row %d: ...%s' % (k, seg[-20:]))
    rule('cut', not bad, '; '.join(bad[:3]))
    # statement: at 80 wide, the column keeps 30
    bad = []
    if width == 80:
        for l in lines:
            if re.search(r'^ *share +(ms/s|total ms)', l):
                t = l.rstrip()
                x = t.index(' statement') + 1 if ' statement' in t else len(t)
                if width - x < 30:
                    bad.append('%d columns' % (width - x))
    rule('statement', not bad, '; '.join(bad))
    if screen != 'overview':
        return res
    # data: a pane with data shows a data row
    bad = []
    for (p, x, x1, y, body) in ts:
        title = lines[y][x:x1]
        text = '\n'.join(body)
        if re.search(r'\d+ rows hidden|\b0 of \d+ rows', title):
            bad.append('pane %d hides all its rows' % p)
        if p == 1 and 'commits/s' not in text and 'waiting for the first sample' not in text:
            bad.append('pane 1 shows no rate')
        if p in (2, 4, 5):
            head = {2: r'^ *(share|ms/s)\b.*\bstatement', 4: r'^event +class', 5: r'^setting +now'}[p]
            for i, l in enumerate(body):
                if re.search(head, l) and (i + 1 >= len(body) or not body[i + 1].strip()):
                    bad.append('pane %d shows its column heads without a row' % p)
        if p == 3:
            w = re.search(r'(\d+) waiting', text)
            if w and int(w.group(1)) > 0 and not re.search(r'^[\u25b6>]', text, re.M):
                bad.append('pane 3: sessions wait, no root blocker shown')
    rule('data', not bad, '; '.join(bad))
    # blank: no pane holds more than 2 blank lines while another is cut
    cut = [p for (p, x, x1, y, b) in ts if CUT_TITLE.search(lines[y][x:x1])]
    bad = []
    for (p, x, x1, y, body) in ts:
        blanks = sum(1 for l in body if not l.strip())
        if blanks > 2 and [c for c in cut if c != p]:
            bad.append('pane %d has %d blank lines while pane %s is cut' % (p, blanks, cut))
    rule('blank', not bad, '; '.join(bad))
    return res


def parts(text, width):
    """The overview cut into [(key, heading, lines)]: top, tiles, bar."""
    raw = text.split('\n')
    if raw and raw[-1] == '':
        raw = raw[:-1]
    lines = [l.ljust(width) for l in raw]
    ts = tiles(lines, width)
    out = []
    first = min([y for (_, _, _, y, _) in ts] or [len(lines) - 1])
    out.append(('top', 'top rows 0-%d' % (first - 1),
                [l.rstrip() for l in lines[:first]]))
    for (p, x, x1, y, body) in sorted(ts):
        title = lines[y][x:x1].rstrip()
        out.append(('[%d]' % p, '%s  columns %d-%d rows %d-%d' % (title, x, x1 - 1, y, y + len(body)),
                    [title] + [b.rstrip() for b in body]))
    out.append(('bar', 'bar row %d' % (len(lines) - 1), [lines[-1].rstrip()]))
    return out


def write_parts(ps):
    for (_, head, body) in ps:
        print('@@ ' + head)
        for l in body:
            print(l)


def read_parts(path):
    """A golden file written by write_parts: {key: (heading, lines)}."""
    got, cur = {}, None
    for l in open(path, encoding='utf-8').read().split('\n'):
        if l.startswith('@@ '):
            head = l[3:]
            key = head.split()[0] if head.split()[0] in ('top', 'bar') else head[:3]
            got[key] = (head, [])
            cur = got[key][1]
        elif cur is not None:
            cur.append(l)
    for k in got:   # (the file's last newline)
        while got[k][1] and got[k][1][-1] == '' and k == list(got)[-1]:
            got[k][1].pop()
    return got


def compare_parts(ps, path):
    want = read_parts(path)
    failed = 0
    for (key, head, body) in ps:
        if key not in want:
            print('not ok - %s: not in %s' % (head, os.path.basename(path)))
            failed += 1
            continue
        whead, wbody = want.pop(key)
        if whead == head and wbody == body:
            print('ok - %s' % head)
            continue
        failed += 1
        print('not ok - %s: differs from the golden (%s)' % (head, whead))
        for i in range(max(len(body), len(wbody))):
            a = wbody[i] if i < len(wbody) else '(none)'
            b = body[i] if i < len(body) else '(none)'
            if a != b:
                print('#   row %d want: %s' % (i, a))
                print('#   row %d got:  %s' % (i, b))
    for key, (whead, _) in want.items():
        print('not ok - %s: missing from the screen' % whead)
        failed += 1
    return failed


def main():
    if len(sys.argv) > 2 and sys.argv[1] == '--tiles':
        ps = parts(sys.stdin.read(), int(sys.argv[2]))
        if len(sys.argv) == 3:
            write_parts(ps)
            sys.exit(0)
        sys.exit(1 if compare_parts(ps, sys.argv[3]) else 0)
    failed = 0
    for f in sys.argv[1:]:
        for line in check(f):
            print(line)
            failed += line.startswith('not ok')
    sys.exit(1 if failed else 0)


main()
