#!/usr/bin/env bash
# Makes sure libvirt's QEMU (running as its own user, not root) can open what every boot needs:
# /dev/kvm and a pseudo-terminal (each serial console is a pty). On a normal Debian machine udev
# and systemd set both up; on a machine that booted without udevd (a sandbox, a container,
# a machine restarted after the packages were installed) they are not, and every boot fails
# with "Could not access KVM kernel module: Permission denied" or "Failed to create PTY:
# Permission denied". Repairs only those two things, to what udev's rule and a standard
# devpts give, says what it changed, then boots a tiny disk-less guest with a pty console to
# prove libvirt can start QEMU here.
# Usage: bash scripts/qemu-access.sh [--check]   (--check: report, change nothing)
set -euo pipefail
check_only=0
[[ ${1:-} == --check ]] && check_only=1

qemu_user=$(sed -n 's/^[[:space:]]*user[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' \
  /etc/libvirt/qemu.conf 2>/dev/null | tail -n1)
qemu_user=${qemu_user:-libvirt-qemu}
if [[ $qemu_user == root || $qemu_user == +0 ]] || ! id "$qemu_user" >/dev/null 2>&1; then
  echo "qemu-access: QEMU runs as '$qemu_user': no device access to check"
else
  as_qemu() { setpriv --reuid="$qemu_user" --regid="$(id -g "$qemu_user")" --init-groups "$@"; }
  # udev's rule (50-udev-default.rules): KERNEL=="kvm", GROUP="kvm", MODE="0660".
  if [[ -c /dev/kvm ]] && ! as_qemu test -r /dev/kvm -a -w /dev/kvm; then
    if ((check_only)) || ! getent group kvm >/dev/null; then
      echo "qemu-access: $qemu_user cannot open /dev/kvm ($(stat -c '%U:%G %a' /dev/kvm))" >&2
    else
      chgrp kvm /dev/kvm && chmod 0660 /dev/kvm
      echo "qemu-access: /dev/kvm was not open to group kvm (udevd never ran its rule): now root:kvm 0660"
    fi
  fi
  # /dev/ptmx as a link to pts/ptmx needs the devpts ptmx node open to all (ptmxmode=0666, as
  # container runtimes mount it); with the default ptmxmode=000 only root gets a pty.
  ptmx=$(readlink -f /dev/ptmx)
  if ! as_qemu test -r "$ptmx" -a -w "$ptmx"; then
    if ((check_only)); then
      echo "qemu-access: $qemu_user cannot open $ptmx ($(stat -c '%U:%G %a' "$ptmx")): no pty consoles" >&2
    else
      chmod 0666 "$ptmx"
      echo "qemu-access: $ptmx was closed to $qemu_user (/dev/ptmx -> $(readlink /dev/ptmx || echo node)): now 0666, as on a standard machine"
    fi
  fi
fi

# The proof: a transient disk-less guest with a pty console logged to a file, as topolab's boots
# have (SeaBIOS then waits: nothing to boot). Its start is what failed before.
name=topolab-setup-probe-$$
log=$(mktemp /tmp/topolab-setup-probe-XXXXXX.log)
xml=$(mktemp /tmp/topolab-setup-probe-XXXXXX.xml)
trap 'virsh -q -c qemu:///system destroy "$name" >/dev/null 2>&1 || true; rm -f "$log" "$xml"' EXIT
cat >"$xml" <<XML
<domain type='qemu'>
  <name>$name</name>
  <memory unit='MiB'>32</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <devices><serial type='pty'><log file='$log' append='off'/></serial></devices>
</domain>
XML
if ! out=$(virsh -q -c qemu:///system create "$xml" 2>&1); then
  echo "qemu-access: libvirt cannot start QEMU here: $out" >&2
  exit 1
fi
echo "qemu-access: libvirt starts QEMU with a pty console"
