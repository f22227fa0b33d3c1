#!/usr/bin/env bash
# mkdeb.sh - `make deb`: a Debian package of what `make install` installs,
# built for PREFIX=/usr in build-deb/ with Debian's hardening flags
# (dpkg-buildflags), staged with `make install DESTDIR=`, then:
#   - the binary and both backends stripped (the debug sections dropped);
#   - the man page gzipped (-9n: reproducible);
#   - contrib/: *.service, *.socket and *.timer go to /lib/systemd/system
#     (ExecStart's /usr/local/bin/dbtop made /usr/bin/dbtop),
#     every other file to /usr/share/doc/dbtop/examples (whatever arrives
#     there is packaged without a change here);
#   - Depends from dpkg-shlibdeps (libc, ncurses, libpcre2, libmicrohttpd,
#     libpq, MariaDB Connector/C: each backend's library is a dependency,
#     though a session loads only the one it needs);
#   - dpkg-deb --root-owner-group: no fakeroot, no root.
# Prints the path of the .deb last. OUT: the directory for it (default .).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-.}
# DEB_MAINTAINER: who the package names (Maintainer, changelog)
maint=${DEB_MAINTAINER:-dbtop packagers <packagers@dbtop.example.org>}
JOBS=${JOBS:-2}
for tool in dpkg-deb dpkg-shlibdeps dpkg-architecture dpkg-buildflags; do
    command -v "$tool" >/dev/null || { echo "mkdeb: $tool is missing (Debian: apt-get install dpkg-dev)" >&2; exit 1; }
done
version=$(sed -n 1p VERSION 2>/dev/null)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "mkdeb: no MAJOR.MINOR.PATCH on VERSION's first line" >&2; exit 1; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
stage=build-deb/stage
rm -rf "$stage"
mkdir -p "$stage"

# the build: its own objects (PREFIX is compiled in), Debian's flags
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
ldflags=$(dpkg-buildflags --get LDFLAGS)
make --no-print-directory -j"$JOBS" BUILD=build-deb BIN=build-deb/dbtop PREFIX=/usr \
    CFLAGS="$cflags" LDFLAGS="$ldflags" build-deb/dbtop >build-deb/build.log 2>&1 ||
    { tail -20 build-deb/build.log >&2; echo "mkdeb: the build failed (build-deb/build.log)" >&2; exit 1; }
make --no-print-directory BUILD=build-deb BIN=build-deb/dbtop PREFIX=/usr DESTDIR="$stage" install >/dev/null

strip --remove-section=.comment --remove-section=.note --strip-unneeded \
    "$stage/usr/bin/dbtop" "$stage"/usr/lib/dbtop/*.so
chmod 0644 "$stage"/usr/lib/dbtop/*.so
gzip -9n "$stage/usr/share/man/man1/dbtop.1"

doc=$stage/usr/share/doc/dbtop
mkdir -p "$doc"
unitdir=${DEB_UNITDIR:-lib/systemd/system}
if [ -d contrib ]; then
    for f in contrib/*; do
        [ -f "$f" ] || continue
        case $f in
        *.service | *.socket | *.timer)
            # the binary is /usr/bin/dbtop here (make install-service does the same for its BINDIR)
            mkdir -p "$stage/$unitdir"
            sed 's|/usr/local/bin/dbtop|/usr/bin/dbtop|g' "$f" >"$stage/$unitdir/$(basename "$f")"
            chmod 0644 "$stage/$unitdir/$(basename "$f")"
            ;;
        *) install -D -m 0644 "$f" "$doc/examples/$(basename "$f")" ;;
        esac
    done
fi
year=$(date -u -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)" +%Y)
cat >"$doc/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: dbtop

Files: *
Copyright: $year the dbtop authors
License: dbtop
 The terms under which dbtop is distributed are those of its source tree.
EOF
date=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
printf 'dbtop (%s) unstable; urgency=medium\n\n  * Package built from the source tree (make deb).\n\n -- %s  %s\n' \
    "$version" "$maint" "$date" | gzip -9n >"$doc/changelog.gz"
find "$stage" -type d -exec chmod 0755 {} +

# the libraries the binary and its plugins link
mkdir -p build-deb/shlibs/debian
printf 'Source: dbtop\n\nPackage: dbtop\nArchitecture: any\n' >build-deb/shlibs/debian/control
depends=$(cd build-deb/shlibs && dpkg-shlibdeps -O --warnings=0 -e"../../$stage/usr/bin/dbtop" \
    -e"../../$stage/usr/lib/dbtop/dbtop-pg.so" -e"../../$stage/usr/lib/dbtop/dbtop-mysql.so" \
    -e"../../$stage/usr/lib/dbtop/dbtop-http.so" 2>/dev/null |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "mkdeb: dpkg-shlibdeps found no dependency" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
mkdir -p "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<EOF
Package: dbtop
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $depends
Section: database
Priority: optional
Description: top-like view of where a MySQL, MariaDB or PostgreSQL server waits
 dbtop samples a database server once per interval and shows commits and
 fsyncs per second and per commit beside the durability settings, the
 statements that take the server's time, the lock-wait tree with its root
 blocker, and the redo, binlog and WAL wait events, with findings that name
 the likely cause. Tuning it applies is journaled and reverted on exit.
 It also prints JSON records (batch mode), serves Prometheus metrics, and
 records and replays incidents; --demo plays bundled incidents offline.
EOF
mkdir -p "$OUT"
deb=$OUT/dbtop_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
