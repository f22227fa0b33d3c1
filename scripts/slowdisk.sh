#!/usr/bin/env bash
# A slow disk to put a throwaway server on (seed 002's ZFS: every flush takes
# MS milliseconds): build/tests/slowdisk (tests/tools/slowdisk.c) serves a
# sparse file through FUSE, a loop device sits on it, ext4 on the loop device.
# The device's own flushes are slow (/proc/diskstats shows it), so the server
# on it and the device agree on where the time goes.
#   scripts/slowdisk.sh up DIR MS    mount DIR/mnt (prints the loop device)
#   scripts/slowdisk.sh down DIR     unmount, detach, remove DIR
# Root, losetup and mkfs.ext4 needed (exit 3 with the reason otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."

up() {
    local dir=$1 ms=$2 loop
    [ "$(id -u)" = 0 ] && command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null && [ -c /dev/fuse ] ||
        { echo "slowdisk: needs root, /dev/fuse, losetup and mkfs.ext4" >&2; exit 3; }
    [ -x build/tests/slowdisk ] || make -s build/tests/slowdisk >/dev/null
    mkdir -p "$dir/fuse" "$dir/mnt"
    chmod 755 "$dir" "$dir/mnt"
    truncate -s 1G "$dir/backing.img"
    build/tests/slowdisk "$dir/backing.img" "$dir/fuse" "$ms" >"$dir/slowdisk.log" 2>&1 &
    echo $! >"$dir/slowdisk.pid"
    for _ in $(seq 1 40); do [ -e "$dir/fuse/disk.img" ] && break; sleep 0.1; done
    loop=$(losetup -f --show "$dir/fuse/disk.img") || { down "$dir"; echo "slowdisk: losetup failed" >&2; exit 3; }
    echo "$loop" >"$dir/loop"
    mkfs.ext4 -q -F -E nodiscard "$loop"
    mount "$loop" "$dir/mnt"
    chmod 755 "$dir/mnt"
    echo "$loop"
}

down() {
    local dir=$1 pid
    [ -d "$dir" ] || return 0
    mountpoint -q "$dir/mnt" 2>/dev/null && { umount "$dir/mnt" 2>/dev/null || umount -l "$dir/mnt"; }
    [ -r "$dir/loop" ] && losetup -d "$(cat "$dir/loop")" 2>/dev/null
    mountpoint -q "$dir/fuse" 2>/dev/null && { umount "$dir/fuse" 2>/dev/null || umount -l "$dir/fuse"; }
    if [ -r "$dir/slowdisk.pid" ]; then
        pid=$(cat "$dir/slowdisk.pid")
        for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill "$pid" 2>/dev/null || true
    fi
    rm -rf "$dir"
}

case ${1:-} in
up) up "$2" "$3" ;;
down) down "$2" ;;
*) echo "usage: scripts/slowdisk.sh up DIR MS | down DIR" >&2; exit 2 ;;
esac
