#!/usr/bin/env bash
# Runs README's commands on a brand-new Debian 12 root (debootstrap minbase + git), as a new
# user's machine would (issue 31), and prints the wall time and its parts: the figures README
# quotes. The root runs in its own mount and PID namespaces (unshare): the libvirtd that
# scripts/setup.sh starts there is its own, never this machine's (libvirtd.sh finds its daemon
# with pgrep, which would see the host's in a plain chroot), and every mount and process of the
# root ends with the namespace. The root has its own /dev (device nodes made here), never a bind
# of the host's: package scripts run inside it.
# Usage: bash bench/fresh-root/run.sh [--ci] [--keep] [COMMIT]
#   default: `bash scripts/main-job.sh` (README's main job); --ci: `bash .ci/run` (the test
#   command, with a copy of ../shared); COMMIT: what to clone (default HEAD); --keep: leave
#   the root in place (its path is printed). Needs root, debootstrap and ~6 GiB under /var/tmp.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
what=main
keep=0
commit=HEAD
while (($#)); do
  case "$1" in
    --ci) what=ci; shift ;;
    --keep) keep=1; shift ;;
    -*) echo "usage: bash bench/fresh-root/run.sh [--ci] [--keep] [COMMIT]" >&2; exit 2 ;;
    *) commit=$1; shift ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "fresh-root: needs root (debootstrap, mounts)" >&2; exit 1; }
# The archive this machine's apt uses (no address is written here), as build-test-disk.sh does.
mirror=${TOPOLAB_DEBIAN_MIRROR:-$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' \
  /etc/apt/sources.list.d/*.sources 2>/dev/null || true)}
[[ -n $mirror ]] || mirror=$(grep -hE '^deb[[:space:]]+[a-z]+://' /etc/apt/sources.list 2>/dev/null |
  grep -v security | awk '{print $2; exit}' || true)
[[ -n $mirror ]] || { echo "fresh-root: no Debian archive in /etc/apt sources; set TOPOLAB_DEBIAN_MIRROR" >&2; exit 1; }

root=$(mktemp -d /var/tmp/topolab-fresh-XXXXXX)
chmod 755 "$root" # it is a machine's /: _apt and libvirt-qemu must reach into it
log=$root.log
cleanup() {
  # The namespace is gone when unshare returns; only files remain.
  if ((keep)); then echo "fresh-root: root kept at $root"; else rm -rf --one-file-system "$root" "$root.out" "$log"; fi
}
trap cleanup EXIT
t0=$(date +%s)
echo "fresh-root: debootstrap bookworm minbase + git into $root"
# Downloads are cached (they are the archive's files, not the machine's state): a second run
# measures the same fresh root without fetching it again.
mkdir -p /var/cache/topolab-fresh/debs
debootstrap --variant=minbase --include=git,ca-certificates \
  --cache-dir=/var/cache/topolab-fresh/debs bookworm "$root" "$mirror" >"$log" 2>&1 ||
  { tail -20 "$log" >&2; exit 1; }
t_bootstrap=$(($(date +%s) - t0))
git -C "$src" rev-parse --verify "$commit^{commit}" >/dev/null
git clone -q --no-local "$src" "$root/root/topolab"
git -C "$root/root/topolab" checkout -q --detach "$(git -C "$src" rev-parse "$commit")"
[[ $what == ci ]] && cp -a "$src/../shared" "$root/root/shared"

case $what in
  main) cmd='bash scripts/main-job.sh' ;;
  ci) cmd='CI=true bash .ci/run' ;;
esac
echo "fresh-root: running '$cmd' in the root ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
t1=$(date +%s)
set +e
unshare --mount --pid --fork --propagation private bash -c '
  set -e
  r=$1; shift
  # The root a mount of its own, as a machine'"'"'s / is: libvirt'"'"'s QEMU namespaces change its
  # propagation ("Failed disable mount propagation out of the root filesystem" otherwise).
  mount --bind "$r" "$r"
  mount -t proc proc "$r/proc"
  mount --rbind /sys "$r/sys"
  # Its own /dev, a tmpfs with the nodes a machine has (kvm and tun too: the accelerator probe
  # must meet the same /dev/kvm); libvirt wants /dev to be a mount (QEMU namespaces).
  mount -t tmpfs -o mode=755 tmpfs "$r/dev"
  node() { mknod -m "$5" "$r/dev/$1" "$2" "$3" "$4"; }
  mkdir -p "$r/dev/pts" "$r/dev/shm" "$r/dev/net"
  node null c 1 3 666; node zero c 1 5 666; node full c 1 7 666; node random c 1 8 666
  node urandom c 1 9 666; node tty c 5 0 666; node kvm c 10 232 666; node net/tun c 10 200 666
  # Loop devices (scripts/build-test-disk.sh, the test command'"'"'s own disk): the control node
  # and block nodes for the numbers losetup --find may be handed (devtmpfs would make them, a
  # tmpfs does not).
  node loop-control c 10 237 660
  for i in $(seq 0 31); do node "loop$i" b 7 "$i" 660; done
  node ptmx c 5 2 666 # a node, as devtmpfs has (a container-style pts/ptmx link is what
  # scripts/qemu-access.sh repairs)
  ln -s /proc/self/fd "$r/dev/fd" # bash process substitution (setup.sh) opens /dev/fd/N
  ln -s /proc/self/fd/0 "$r/dev/stdin"; ln -s /proc/self/fd/1 "$r/dev/stdout"
  ln -s /proc/self/fd/2 "$r/dev/stderr"
  mount -t devpts -o newinstance,gid=5,mode=620,ptmxmode=000 devpts "$r/dev/pts" # as systemd
  mount -t tmpfs tmpfs "$r/dev/shm"
  mount -t tmpfs tmpfs "$r/run"
  # The root becomes the namespace'"'"'s own / (pivot_root, not chroot): libvirt enters QEMU'"'"'s
  # mount namespace with setns, which moves a process to that namespace'"'"'s root; after a mere
  # chroot that was this machine'"'"'s /, so libvirt populated the real /dev (2026-12-06: a chroot
  # run with a /dev/ptmx link replaced the machine'"'"'s /dev/ptmx by a link and changed the group
  # of its /dev/kvm) and QEMU failed "Failed to create PTY".
  cd "$r"
  mkdir -p .oldroot
  pivot_root . .oldroot
  umount -l /.oldroot
  rmdir /.oldroot
  exec /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb bash -c "cd /root/topolab && $1"
' fresh-root "$root" "$cmd" 2>&1 | tee "$root.out"
rc=${PIPESTATUS[0]}
set -e
t_cmd=$(($(date +%s) - t1))
# The parts, from main-job.sh's own "=== ... (HH:MM:SS)" lines (the same day: a run is minutes).
at() { date -d "$1" +%s; }
b=$(sed -n 's/^=== release build (\([0-9:]*\))$/\1/p' "$root.out" | head -n1)
r=$(sed -n 's/^=== topolab run .* (\([0-9:]*\))$/\1/p' "$root.out" | head -n1)
e=$(sed -n 's/^=== run finished in \([0-9]*\) s.*/\1/p' "$root.out" | head -n1)
parts=""
[[ -n $b ]] && parts+="setup $(($(at "$b") - t1)) s"
[[ -n $b && -n $r ]] && parts+=", build $(($(at "$r") - $(at "$b"))) s"
[[ -n $e ]] && parts+=", experiment $e s"
[[ -n $r && -n $e ]] && parts+=", report $((t1 + t_cmd - $(at "$r") - e)) s"
echo "fresh-root: '$cmd' exit $rc in $t_cmd s wall (${parts:-no parts found}; debootstrap $t_bootstrap s before it, not counted) on $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
exit "$rc"
