#!/usr/bin/env bash
# Installs every package topolab needs on Debian 12 and makes sure libvirtd is reachable.
# Idempotent: safe to run again; installs only what is missing.
set -euo pipefail

# The package lists (one a line, '#' comments): main.txt for the main job, test.txt as well for
# the test suite (`--test`, run by scripts/test.sh), so the main job's setup is only what it uses.
# tests/scripts/program_provenance_test.cpp checks that every program the scripts and tests run
# comes from one of them or from Debian's minbase.
lists=("$(dirname "$0")/packages/main.txt")
case "${1:-}" in
  --test) lists+=("$(dirname "$0")/packages/test.txt") ;;
  "") ;;
  *) echo "usage: bash scripts/setup.sh [--test]" >&2; exit 2 ;;
esac
mapfile -t PACKAGES < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "${lists[@]}")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq -o Dpkg::Options::=--force-confnew -o Dpkg::Options::=--force-confdef \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# Nothing starts libvirtd on these machines; start it when qemu:///system is unreachable.
if ! virsh -c qemu:///system version >/dev/null 2>&1; then
  echo "setup: starting virtlogd and libvirtd"
  bash "$(dirname "$0")/libvirtd.sh" start
fi
# QEMU's own user must reach /dev/kvm and a pty, which a machine booted without udevd lacks;
# a boot of a tiny guest proves it before anything long runs (scripts/qemu-access.sh says why).
bash "$(dirname "$0")/qemu-access.sh"
echo "setup: ready"
