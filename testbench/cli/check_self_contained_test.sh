#!/usr/bin/env bash
# The CI check that a clone needs nothing beside it (.ci/check_self_contained),
# checked itself: in a scratch git repository holding a copy of it, a clean
# tree passes, and a reference to the shared folder or to a variable standing
# for it fails the check wherever a build file, script or test holds it.
#   check_self_contained_test.sh CHECKER
# The references are assembled at run time, so this file does not hold them.
set -uo pipefail
checker=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rnicsim_self_contained.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
git init -q . && git config user.email t@t && git config user.name t
mkdir -p .ci model cmake scripts testbench/unit
cp "$checker" .ci/check_self_contained
echo 'add_library(x x.cpp)' >model/CMakeLists.txt
echo 'include(x)' >CMakeLists.txt
git add -A && git commit -qm clean
.ci/check_self_contained >/dev/null 2>&1 || { echo "FAIL: a clean tree fails the check"; exit 1; }

dots=..
under=_
slash=/
references=("set(D \${CMAKE_SOURCE_DIR}/$dots${slash}shared${slash}testdata)"
            "set(SHARED${under}DIR x)" "open('/work${slash}shared${slash}REFERENCE.md')")
places=(model/CMakeLists.txt cmake/Data.cmake scripts/run testbench/unit/x_test.cpp
        testbench/golden/check.py .ci/run)
failures=0
for place in "${places[@]}"; do
  for reference in "${references[@]}"; do
    mkdir -p "$(dirname "$place")"
    echo "$reference" >>"$place"
    git add -A && git commit -qm "refer from $place"
    if .ci/check_self_contained >/dev/null 2>&1; then
      echo "FAIL: '$reference' in $place passes the check"
      failures=$((failures + 1))
    fi
    git reset -q --hard HEAD~1
  done
done
[ "$failures" = 0 ] || exit 1
echo "PASS: ${#places[@]} places x ${#references[@]} references caught, a clean tree passes"
