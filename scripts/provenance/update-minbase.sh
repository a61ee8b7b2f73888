#!/usr/bin/env bash
# Writes minbase-bookworm.txt: the packages of a Debian 12 minbase root, what a fresh machine
# has before scripts/setup.sh (read by tests/scripts/program_provenance_test.cpp).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  echo "# Debian 12 (bookworm) minbase: \`bash scripts/provenance/update-minbase.sh\` writes this list"
  echo "# (debootstrap --print-debs --variant=minbase bookworm). One package a line."
  debootstrap --print-debs --variant=minbase bookworm "$tmp/root" | tr ' ' '\n' | grep -v '^$' | sort -u
} >minbase-bookworm.txt.new
mv minbase-bookworm.txt.new minbase-bookworm.txt
echo "update-minbase: $(grep -vc '^#' minbase-bookworm.txt) packages"
