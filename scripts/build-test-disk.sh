#!/usr/bin/env bash
# Builds the bootable Debian 12 disk image the own-guest integration tests boot (issue 14):
# a debootstrap minbase root, the Debian kernel (linux-image-amd64) with a small initramfs,
# extlinux installed on the disk's single ext4 partition (MBR from syslinux), systemd starting
# topolab-agent.service with the static agent. Prints the image path (qcow2) on stdout.
#
# Usage: build-test-disk.sh AGENT_BINARY SERVICE_FILE
#        build-test-disk.sh --root-only   (only the slow root stage below, e.g. in the background
#                                          while scripts/test.sh compiles; prints nothing)
# Cache: $TOPOLAB_TEST_CACHE (default /var/cache/topolab-test). Two stages, each keyed by a
# hash of its inputs so an agent rebuild does not redo the slow debootstrap:
#   root-<hash of this script>.tar          the configured root filesystem
#   debian12-<hash of script+agent+unit>.qcow2  the disk
# Safety: package scripts run in the root with its OWN /dev (device nodes made with mknod by
# debootstrap and by us), never a bind mount of the host's /dev (a script re-owning the host's
# /dev/kvm once made every libvirt call slow). Every mount and loop device is released by the
# EXIT trap on every path.
set -euo pipefail

root_only=0
if [[ ${1:-} == --root-only ]]; then
  root_only=1
else
  agent=${1:?usage: build-test-disk.sh AGENT_BINARY SERVICE_FILE | --root-only}
  unit=${2:?usage: build-test-disk.sh AGENT_BINARY SERVICE_FILE | --root-only}
fi
cache=${TOPOLAB_TEST_CACHE:-/var/cache/topolab-test}
# The Debian archive this machine's apt already uses (deb822 sources, then the one-line format):
# the tests fetch from the same place as setup.sh's apt-get, and no address is written here.
apt_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r $f ]] || continue
    awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' "$f"
  done | head -n1
  grep -hE '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z]+://' /etc/apt/sources.list 2>/dev/null |
    grep -v security | awk '{for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' | head -n1
  return 0 # no sources.list is normal on deb822 systems; pipefail must not end the script
}
mirror=${TOPOLAB_DEBIAN_MIRROR:-$(apt_mirror | head -n1 || true)}
[[ -n $mirror ]] || { echo "build-test-disk: no Debian archive in /etc/apt sources; set TOPOLAB_DEBIAN_MIRROR" >&2; exit 1; }
self=$(readlink -f "${BASH_SOURCE[0]}")

log() { echo "build-test-disk: $*" >&2; }
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

mkdir -p "$cache/debs"
# The root stage's key covers only the functions that make it (defined below), so an edit to the
# disk stage does not redo the debootstrap.
root_key() { declare -f own_dev in_root build_root | sha256sum | cut -c1-16; }
if ((!root_only)); then
  disk_key=$(hash_of "$self" "$agent" "$unit")
  disk="$cache/debian12-$disk_key.qcow2"
  if [[ -s $disk ]]; then
    echo "$disk"
    exit 0
  fi
fi

# One builder at a time (two test processes may start together; the disk stage waits here for
# a --root-only build still running in the background).
exec 9>"$cache/.lock"
flock 9
if ((!root_only)) && [[ -s $disk ]]; then
  echo "$disk"
  exit 0
fi

work=$(mktemp -d "$cache/work.XXXXXX")
loop=""
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
  # Mounts debootstrap made itself (its root's /proc, /sys) when it was stopped midway, e.g. by
  # scripts/test.sh ending while this ran in the background: deepest first.
  local m
  for m in $(awk -v w="$work/" 'index($2, w) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  [[ -n $loop ]] && losetup -d "$loop" 2>/dev/null || true
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The root's own /dev: the few nodes package scripts use, made here (not the host's).
own_dev() {
  local dev=$1/dev
  mkdir -p "$dev/pts" "$dev/shm"
  local spec
  for spec in "null c 1 3" "zero c 1 5" "full c 1 7" "random c 1 8" "urandom c 1 9" \
    "tty c 5 0" "console c 5 1" "ptmx c 5 2"; do
    set -- $spec
    [[ -e $dev/$1 ]] || mknod -m 666 "$dev/$1" "$2" "$3" "$4"
  done
}

# Runs a command in the root with its own /dev and a private /proc, unmounted afterwards.
in_root() {
  local root=$1
  shift
  own_dev "$root"
  mount -t proc proc "$root/proc"
  mounts+=("$root/proc")
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$root" "$@"
  umount "$root/proc"
  unset 'mounts[-1]'
}

build_root() {
  local root=$work/root
  log "debootstrap bookworm from $mirror (minbase, no recommends)"
  debootstrap --variant=minbase --cache-dir="$cache/debs" \
    --include=systemd,systemd-sysv,udev,kmod,initramfs-tools,zstd,linux-image-amd64 \
    bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log" >&2
    return 1
  }
  # debootstrap unmounts what it mounted; make sure nothing of it stays.
  umount "$root/proc" 2>/dev/null || true
  umount "$root/sys" 2>/dev/null || true

  echo topolab-guest >"$root/etc/hostname"
  echo "/dev/vda1 / ext4 defaults,noatime 0 1" >"$root/etc/fstab"
  # A small initramfs: only what finds the virtio root disk (the default "most" is ~30 MB).
  sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
  printf '%s\n' virtio_pci virtio_blk ext4 >>"$root/etc/initramfs-tools/modules"
  # Units that only slow a TCG boot and do nothing for a lab guest.
  local u
  for u in systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
    fstrim.timer; do
    ln -sf /dev/null "$root/etc/systemd/system/$u"
  done
  in_root "$root" update-initramfs -u -k all >/dev/null
  # Drivers a virtio lab guest never loads: most of the kernel's size.
  local mods
  mods=$(echo "$root"/lib/modules/*)
  rm -rf "$mods/kernel/drivers/"{gpu,media,net/wireless,infiniband,staging,isdn,bluetooth} \
    "$mods/kernel/sound" "$root/usr/share/doc" "$root/usr/share/man" "$root/var/cache/apt"/*.bin
  in_root "$root" depmod -a "$(basename "$mods")"
  rm -f "$root/dev/"{null,zero,full,random,urandom,tty,console,ptmx}
  tar -C "$root" --numeric-owner -cf "$root_tar.tmp" .
  mv "$root_tar.tmp" "$root_tar"
  rm -rf --one-file-system "$root"
}

build_disk() {
  local raw=$work/disk.raw mnt=$work/mnt
  local size_mb=$(($(stat -c %s "$root_tar") / 1048576 + 400))
  truncate -s "${size_mb}M" "$raw"
  parted -s "$raw" mklabel msdos mkpart primary ext4 1MiB 100% set 1 boot on
  dd if=/usr/lib/EXTLINUX/mbr.bin of="$raw" bs=440 count=1 conv=notrunc status=none
  # The partition as its own loop device (offset), so no partition nodes are needed in /dev.
  loop=$(losetup --find --show --offset $((1024 * 1024)) --sizelimit $(((size_mb - 1) * 1024 * 1024)) "$raw")
  # extlinux 6.04 reads ext4 without 64bit/metadata_csum.
  mkfs.ext4 -q -L topolab-root -O ^64bit,^metadata_csum "$loop"
  mkdir -p "$mnt"
  mount "$loop" "$mnt"
  mounts+=("$mnt")
  tar -C "$mnt" --numeric-owner -xf "$root_tar"
  own_dev "$mnt"
  install -m 0755 "$agent" "$mnt/usr/local/bin/topolab-agent"
  install -m 0644 "$unit" "$mnt/etc/systemd/system/topolab-agent.service"
  # The agent unit waits for udev-settle, which times out (3 min) under a loaded TCG host; the
  # agent waits for its port itself, so the settle is not needed here.
  ln -sf /dev/null "$mnt/etc/systemd/system/systemd-udev-settle.service"
  mkdir -p "$mnt/etc/systemd/system/multi-user.target.wants"
  ln -sf /etc/systemd/system/topolab-agent.service \
    "$mnt/etc/systemd/system/multi-user.target.wants/topolab-agent.service"
  local kernel initrd
  kernel=$(cd "$mnt/boot" && ls vmlinuz-* | sort -V | tail -1)
  initrd=initrd.img-${kernel#vmlinuz-}
  mkdir -p "$mnt/boot/extlinux"
  # Cmdline as the built-in image (console=ttyS0 quiet panic=-1) plus the root disk and
  # no_timer_check: on a loaded TCG host the kernel's IO-APIC timer check fails and panics
  # ("IO-APIC + timer doesn't work!", measured here).
  cat >"$mnt/boot/extlinux/extlinux.conf" <<EOF
DEFAULT linux
PROMPT 0
TIMEOUT 1
LABEL linux
  LINUX /boot/$kernel
  INITRD /boot/$initrd
  APPEND root=/dev/vda1 ro console=ttyS0 quiet panic=-1 no_timer_check
EOF
  extlinux --install "$mnt/boot/extlinux" 2>/dev/null
  umount "$mnt"
  unset 'mounts[-1]'
  losetup -d "$loop"
  loop=""
  qemu-img convert -O qcow2 "$raw" "$disk.tmp"
  mv "$disk.tmp" "$disk"
}

root_tar="$cache/root-$(root_key).tar"
[[ -s $root_tar ]] || build_root
if ((root_only)); then
  log "built $root_tar"
  exit 0
fi
build_disk
# Older disks and roots of this builder: keep the cache bounded.
find "$cache" -maxdepth 1 \( -name 'debian12-*.qcow2' ! -name "${disk##*/}" -o \
  -name 'root-*.tar' ! -name "${root_tar##*/}" \) -mmin +60 -delete
log "built $disk"
echo "$disk"
