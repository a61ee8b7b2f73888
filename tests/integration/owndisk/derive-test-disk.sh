#!/usr/bin/env bash
# A variant of the cached test disk (scripts/build-test-disk.sh) for the own-guest failure
# tests, made from a raw copy: the cached base image is only read (qemu-img convert).
#   no-agent     topolab-agent.service masked: the guest boots but never says hello
#   no-poweroff  the agent serves without --poweroff: it acknowledges a shutdown request and
#                leaves the guest running (a real configuration: --poweroff is optional), so
#                only the ACPI power button powers it off; dbus is installed (apt, from the
#                archive the image came from) so that systemd-logind runs and handles the power
#                key as on any full install (the minbase image has no dbus, hence no logind, and
#                ignores the button)
#   hang-once    the first boot of each overlay hangs (the boot watchdog's own-disk test): PID 1
#                is a script that marks the disk, prints one line and sleeps, silent, with no
#                hello (the TCG kernel hang as the watchdog sees it); later boots of the same
#                overlay (the watchdog's retry) run systemd. Without `quiet`, so a healthy boot
#                keeps the console growing and a short test bound cannot hit it
# Usage: derive-test-disk.sh BASE.qcow2 VARIANT   prints the variant's path (raw, cached next to
# the base as <base>-<variant>.raw; variants of older bases are deleted).
set -euo pipefail
base=${1:?usage: derive-test-disk.sh BASE.qcow2 VARIANT}
variant=${2:?usage: derive-test-disk.sh BASE.qcow2 VARIANT}
case $variant in no-agent | no-poweroff | hang-once) ;; *)
  echo "derive-test-disk: unknown variant '$variant'" >&2
  exit 2
  ;;
esac
cache=$(dirname "$base")
stem=$(basename "$base" .qcow2)
out="$cache/$stem-$variant.raw"
[[ -s $out ]] && { echo "$out"; exit 0; }
exec 9>"$cache/.lock"
flock 9
[[ -s $out ]] && { echo "$out"; exit 0; }

work=$(mktemp -d "$cache/derive.XXXXXX")
loop="" mounted="" proc=""
cleanup() {
  [[ -n $proc ]] && umount -l "$proc" 2>/dev/null || true
  [[ -n $mounted ]] && umount -l "$mounted" 2>/dev/null || true
  [[ -n $loop ]] && losetup -d "$loop" 2>/dev/null || true
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# apt-get install dbus in the image's root: its own /dev nodes (never the host's /dev, as
# build-test-disk.sh), a private /proc, the host's resolver for the download.
install_dbus() {
  local root=$1 spec
  mkdir -p "$root/dev"
  for spec in "null c 1 3" "zero c 1 5" "random c 1 8" "urandom c 1 9"; do
    set -- $spec
    [[ -e $root/dev/$1 ]] || mknod -m 666 "$root/dev/$1" "$2" "$3" "$4"
  done
  mount -t proc proc "$root/proc"
  proc=$root/proc
  cp "$root/etc/resolv.conf" "$work/resolv.conf" 2>/dev/null || true
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get -qq update >&2
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$root" \
    apt-get -qq install -y --no-install-recommends dbus >&2
  chroot "$root" apt-get -qq clean
  rm -f "$root/etc/resolv.conf"
  [[ -f $work/resolv.conf ]] && cp "$work/resolv.conf" "$root/etc/resolv.conf"
  umount "$proc"
  proc=""
  [[ -x $root/usr/bin/dbus-daemon ]] || { echo "derive-test-disk: dbus did not install" >&2; exit 1; }
}

qemu-img convert -O raw "$base" "$work/disk.raw"
# The partition's boot block (extlinux's boot sector, bytes 0-1023; ext4 never uses them) is
# saved first and put back after the edit: mounting through the loop device was seen to write
# that block back as zeros (the guest then found no boot sector: no console output, no hello).
dd if="$work/disk.raw" of="$work/bootblock" bs=1024 skip=1024 count=1 status=none
# The root partition starts at 1 MiB (build-test-disk.sh); its own loop device, no partition nodes.
loop=$(losetup --find --show --offset $((1024 * 1024)) "$work/disk.raw")
mkdir -p "$work/mnt"
mount "$loop" "$work/mnt"
mounted=$work/mnt
unit=$work/mnt/etc/systemd/system/topolab-agent.service
[[ -f $unit ]] || { echo "derive-test-disk: $base has no topolab-agent.service" >&2; exit 1; }
case $variant in
  no-agent)
    rm -f "$work/mnt/etc/systemd/system/multi-user.target.wants/topolab-agent.service"
    rm -f "$unit"
    ln -s /dev/null "$unit"
    ;;
  no-poweroff)
    sed -i 's/ --poweroff//' "$unit"
    if grep -q -- --poweroff "$unit"; then
      echo "derive-test-disk: --poweroff still in $unit" >&2
      exit 1
    fi
    install_dbus "$work/mnt"
    ;;
  hang-once)
    cat >"$work/mnt/usr/local/sbin/topolab-hang-once" <<'EOS'
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mark=/var/lib/topolab-hung-once
if [ ! -e $mark ]; then
  mount -o remount,rw / && : >$mark && sync && mount -o remount,ro /
  echo "topolab-hang-once: PID 1 hangs on this first boot (no hello)" >/dev/console
  exec sleep infinity
fi
exec /lib/systemd/systemd "$@"
EOS
    chmod 0755 "$work/mnt/usr/local/sbin/topolab-hang-once"
    conf=$work/mnt/boot/extlinux/extlinux.conf
    sed -i 's| quiet | init=/usr/local/sbin/topolab-hang-once |' "$conf"
    grep -q 'init=/usr/local/sbin/topolab-hang-once' "$conf" ||
      { echo "derive-test-disk: no APPEND line to edit in $conf" >&2; exit 1; }
    ;;
esac
umount "$mounted"
mounted=""
losetup -d "$loop"
loop=""
dd if="$work/bootblock" of="$work/disk.raw" bs=1024 seek=1024 count=1 conv=notrunc status=none
cmp -s "$work/bootblock" <(dd if="$work/disk.raw" bs=1024 skip=1024 count=1 status=none) ||
  { echo "derive-test-disk: the boot block was not restored" >&2; exit 1; }
find "$cache" -maxdepth 1 \( -name 'debian12-*-no-*.raw' -o -name 'debian12-*-hang-*.raw' \) \
  ! -name "$stem-*" -delete
mv "$work/disk.raw" "$out"
echo "$out"
