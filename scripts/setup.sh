#!/usr/bin/env bash
# Installs every package topolab needs on Debian 12 and makes sure libvirtd is reachable.
# Idempotent: safe to run again; installs only what is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libvirt-dev libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils
  libpugixml-dev libcli11-dev libspdlog-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libtomlplusplus-dev libsqlite3-dev sqlite3
  linux-image-amd64 kmod cpio
  clang clang-format libclang-rt-14-dev ccache
  libxml2-utils
  # libvirtd runs under tini -s (scripts/libvirtd.sh): exited QEMU processes are reaped at once
  # instead of by this sandbox's PID 1 every ~2 s, which libvirt's destroy waited for (issue 17).
  tini
  # Headless Chromium renders the HTML report in tests (html_render_test, and the issue-18
  # browser acceptance test in tests/integration/browser: each SVG picture must draw).
  chromium
  # The Windows guest agent (issue 15): topolab-agent.exe cross-built with mingw-w64 (the
  # -posix variant has std::thread; its objdump lists the imports), its tests run it under
  # wine (wine: /usr/bin/wine, wine64: the 64-bit loader), `topolab image --windows`
  # writes its ISO with xorriso.
  g++-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 wine64 wine xorriso
  # Own guests (issue 14): scripts/build-test-disk.sh builds the Debian 12 disk the own-disk
  # integration tests boot: debootstrap for the root, parted for the MBR partition table,
  # extlinux (+ syslinux-common's mbr.bin) as the disk's boot loader (qemu-utils: qemu-img).
  debootstrap parted extlinux syslinux-common
  # Not pulled in by the above on a minimal Debian 12: the package test (ctest -L package) traces
  # the unpacked binary with strace and renders the man page with man -l; zstd unpacks a
  # zstd-compressed kernel or .ko.zst module for the built-in image (image/pvh_kernel.cpp,
  # image/module_resolver.cpp).
  strace man-db zstd
  # Scale-out (issue 30): the Slurm integration test runs a single-node cluster of its own
  # (scripts/slurm.sh: munged, slurmctld, slurmd) and submits `topolab slurm`'s script to it.
  slurm-wlm munge
)

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
echo "setup: ready"
