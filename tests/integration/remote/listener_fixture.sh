#!/usr/bin/env bash
# ctest fixture "libvirt_tcp" of tests/integration/remote (issue 16): libvirtd's TCP listener on
# 127.0.0.1:PORT (auth none, test only), the second endpoint through libvirt's remote driver.
#   listener_fixture.sh setup STATE PORT    scripts/libvirtd.sh listen PORT; records its answer
#   listener_fixture.sh cleanup STATE       restores libvirtd only if setup printed "started":
#                                           a listener that was already up (a developer's, a
#                                           shared machine's) is left as it was
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
libvirtd_sh="$here/../../../scripts/libvirtd.sh"
case "${1:-}" in
  setup)
    answer=$(bash "$libvirtd_sh" listen "$3")
    echo "$answer" >"$2"
    echo "libvirt_tcp fixture: $answer (port $3)"
    ;;
  cleanup)
    if [[ "$(cat "$2" 2>/dev/null)" == started ]]; then
      bash "$libvirtd_sh" restore
      echo "libvirt_tcp fixture: restored libvirtd without the listener"
    else
      echo "libvirt_tcp fixture: listener was already up; left as it was"
    fi
    rm -f "$2"
    ;;
  *)
    echo "usage: listener_fixture.sh setup STATE PORT | cleanup STATE" >&2
    exit 2
    ;;
esac
