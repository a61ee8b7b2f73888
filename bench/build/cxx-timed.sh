#!/usr/bin/env bash
# The compiler of bench/build/build-cost.sh: runs the real one ($BUILD_COST_CXX) and appends
# its CPU time (user + system of the compiler and its children) and output file to
# $BUILD_COST_LOG. A compiler rather than a launcher, so that it also measures a tree whose
# CMakeLists sets its own launcher (ccache, which CCACHE_DISABLE turns into a plain pass-through).
"${BUILD_COST_CXX:?}" "$@"
rc=$?
out=""
prev=""
for a in "$@"; do
  [[ "$prev" == "-o" ]] && out=$a
  prev=$a
done
# `times` in this shell (a pipe, $( ) or <( ) would run it in a subshell without our children):
# its second line is our children's, i.e. this compile's.
tf=${BUILD_COST_LOG:?}.$$
times >"$tf"
mapfile -t lines <"$tf"
rm -f "$tf"
t=${lines[1]}
u=${t%% *}
s=${t##* }
sec() { awk -v m="${1%%m*}" -v r="${1#*m}" 'BEGIN{sub(/s$/, "", r); printf "%.3f", m * 60 + r}'; }
[[ -n "$out" ]] && echo "$(sec "$u") $(sec "$s") $out" >>"${BUILD_COST_LOG:?}"
exit $rc
