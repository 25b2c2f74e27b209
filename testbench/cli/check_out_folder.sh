#!/usr/bin/env bash
# What `rnicsim run --out` does with folders, in cases check_cli.cmake cannot
# set up: an empty --out, a folder rnicsim may not write into, a run that fails
# after its staging folder exists, and staging folders left by a killed run.
#   check_out_folder.sh CASE RNICSIM SEED_CONFIG
# Each case works in a fresh folder under $TMPDIR (or /tmp), which the user
# nobody can reach. Exit 0: passed; 77: skipped (said why); else failed (said why).
set -uo pipefail

case_name=$1
rnicsim=$2
seed=$3
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run EXPECTED_EXIT STDERR_REGEX CMD...: runs CMD, checks the exit code and
# that stderr is exactly one line matching the regex.
run() {
  local expected_exit=$1 pattern=$2
  shift 2
  local err
  err=$("$@" 2>&1 >/dev/null)
  local code=$?
  echo "\$ $*"
  echo "$err"
  [ "$code" = "$expected_exit" ] || fail "exit code $code, expected $expected_exit"
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "stderr is not one line"
  [[ $err =~ $pattern ]] || fail "stderr does not match: $pattern"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rnicsim_out_folder.XXXXXX") || fail "cannot make a temporary folder"
cleanup() {
  chmod -R u+w "$tmp" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# Sets bin, config and as_user so that "${as_user[@]}" "$bin" run "$config"
# runs rnicsim as a user the permission modes apply to: as root, nobody
# (through setpriv or runuser), with the binary and config copied where nobody
# can reach them, and works from $tmp, which that user can enter (ctest's
# working folder may sit in a clone under a 0700 home). Exits 77 (skipped)
# when that cannot be arranged.
as_a_plain_user() {
  chmod 755 "$tmp"
  cd "$tmp" || fail "cd $tmp"
  cp "$rnicsim" "$seed" "$tmp/" || fail "cannot copy rnicsim"
  bin="$tmp/$(basename "$rnicsim")"
  config="$tmp/$(basename "$seed")"
  chmod 755 "$bin"
  chmod 644 "$config"
  as_user=()
  [ "$(id -u)" = 0 ] || return 0
  if ! id nobody >/dev/null 2>&1; then
    echo "SKIP: running as root and there is no user nobody to run rnicsim as"
    exit 77
  fi
  local group
  group=$(id -gn nobody)
  if command -v setpriv >/dev/null; then
    as_user=(setpriv --reuid=nobody "--regid=$group" --clear-groups)
  elif command -v runuser >/dev/null; then
    as_user=(runuser -u nobody --)
  else
    echo "SKIP: running as root without setpriv or runuser to become nobody"
    exit 77
  fi
  if ! "${as_user[@]}" test -x "$bin" || ! "${as_user[@]}" test -r "$config"; then
    echo "SKIP: nobody cannot run $bin here (${as_user[*]} failed or $tmp is not reachable)"
    exit 77
  fi
}

case $case_name in
  empty_out)
    # Run from an empty folder: the default output folder would appear there.
    cd "$tmp" || fail "cd $tmp"
    run 2 '^rnicsim: error: --out "": is empty: give the folder to write results into$' \
      "$rnicsim" run "$seed" --out "" --set output.plot=false
    [ -z "$(ls -A "$tmp")" ] || fail "an empty --out wrote $(ls -A "$tmp")"
    ;;

  permission_denied)
    # A folder the user can read and enter but not write. Root writes
    # anywhere, so as root the run goes as nobody.
    as_a_plain_user
    mkdir -p "$tmp/ro/old"
    echo '{}' >"$tmp/ro/old/effective_config.json"
    chmod 555 "$tmp/ro"
    if "${as_user[@]}" test -w "$tmp/ro"; then
      echo "SKIP: $tmp/ro stays writable for $("${as_user[@]}" id -un) (a file system ignoring modes?)"
      exit 77
    fi
    run 2 "^rnicsim: error: --out $tmp/ro/run: cannot create a folder in $tmp/ro: Permission denied\$" \
      "${as_user[@]}" "$bin" run "$config" --out "$tmp/ro/run" --set output.plot=false
    run 2 "^rnicsim: error: --out $tmp/ro/new/run: cannot create $tmp/ro/new: Permission denied\$" \
      "${as_user[@]}" "$bin" run "$config" --out "$tmp/ro/new/run" --set output.plot=false
    # An earlier run in a folder that cannot be written is left as it was.
    run 2 "^rnicsim: error: --out $tmp/ro/old: cannot create a folder in $tmp/ro: Permission denied\$" \
      "${as_user[@]}" "$bin" run "$config" --out "$tmp/ro/old" --set output.plot=false
    [ "$(ls -A "$tmp/ro")" = old ] || fail "$tmp/ro now holds: $(ls -A "$tmp/ro")"
    [ -f "$tmp/ro/old/effective_config.json" ] || fail "the earlier run in $tmp/ro/old was touched"
    ;;

  earlier_results_not_removable)
    # An earlier run holding a folder its user cannot empty (read-only): the
    # new results still take its place, the earlier ones are moved aside
    # whole and a note says they could not all be removed; nothing is lost.
    as_a_plain_user
    mkdir -p "$tmp/w/old/notes"
    echo '{}' >"$tmp/w/old/effective_config.json"
    echo 'keep me' >"$tmp/w/old/notes/mine.txt"
    chmod 555 "$tmp/w/old/notes"
    [ -z "${as_user[*]}" ] || chown -R nobody "$tmp/w"
    out=$("${as_user[@]}" "$bin" run "$config" --out "$tmp/w/old" --set output.plot=false 2>&1)
    code=$?
    echo "$out"
    [ "$code" = 0 ] || fail "exit code $code, expected 0"
    [ -f "$tmp/w/old/summary.json" ] || fail "the new results are not at $tmp/w/old"
    [[ $out =~ note:\ the\ earlier\ results,\ moved\ to\ $tmp/w/old\.previous-[0-9]+,\ could\ not\ all\ be\ removed ]] ||
      fail "no note about the earlier results"
    ls "$tmp"/w/old.previous-*/notes/mine.txt >/dev/null 2>&1 || fail "the earlier results were lost"
    ;;

  working_folder_unreachable)
    # A working folder this user cannot enter, every path given absolute:
    # rnicsim never needs the working folder then, and the run succeeds.
    as_a_plain_user
    [ -n "${as_user[*]}" ] || { echo "SKIP: not root: cannot make a folder this user cannot enter"; exit 77; }
    mkdir -p "$tmp/closed/inner" "$tmp/w"
    chmod 700 "$tmp/closed"
    chown nobody "$tmp/w"
    if "${as_user[@]}" test -x "$tmp/closed"; then
      echo "SKIP: $tmp/closed stays reachable for nobody (a file system ignoring modes?)"
      exit 77
    fi
    cd "$tmp/closed/inner" || fail "cd $tmp/closed/inner"
    run 0 '^$' "${as_user[@]}" "$bin" run "$config" --out "$tmp/w/run" --set output.plot=false
    [ -f "$tmp/w/run/summary.json" ] || fail "the run wrote no $tmp/w/run/summary.json"
    ;;

  failed_run_leaves_nothing)
    # Writing the results fails once the staging folder exists: the file size
    # limit stops the first file over 1 KiB (SIGXFSZ ignored, so write() fails
    # with EFBIG instead of killing rnicsim). The folders the run created for
    # --out, parents included, must go; an earlier run elsewhere must stay.
    mkdir -p "$tmp/keep"
    echo '{}' >"$tmp/keep/effective_config.json"
    run 1 "^rnicsim: error: --out $tmp/new1/new2/run: cannot write [a-z_.]+: File too large\$" \
      bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' bash \
      "$rnicsim" run "$seed" --out "$tmp/new1/new2/run" --set output.plot=false
    [ ! -e "$tmp/new1" ] || fail "the failed run left $(find "$tmp/new1")"
    run 1 "^rnicsim: error: --out $tmp/keep: cannot write [a-z_.]+: File too large\$" \
      bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' bash \
      "$rnicsim" run "$seed" --out "$tmp/keep" --set output.plot=false
    [ "$(ls -A "$tmp")" = keep ] || fail "$tmp now holds: $(ls -A "$tmp")"
    [ "$(ls -A "$tmp/keep")" = effective_config.json ] || fail "the earlier run was touched"
    ;;

  stale_staging_removed)
    # A run killed with SIGKILL cannot remove its staging folder; the next run
    # into the same place does, and nothing else.
    "$rnicsim" run "$seed" --out "$tmp/out" --set workload.count=2000000 \
      --set output.plot=false --set output.trace=false >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 600); do
      [ -d "$tmp/out.partial-$pid" ] && break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [ -d "$tmp/out.partial-$pid" ] || fail "the killed run $pid left no staging folder to test with"
    sh -c 'exit 0' &
    dead=$!
    wait "$dead"
    # Not to be touched: a live process's folder (this script's), names that
    # are not exactly out.partial-<digits>, a symbolic link.
    mkdir "$tmp/out.partial-$$" "$tmp/out.partial-12x" "$tmp/out.partial-" \
      "$tmp/other.partial-$pid" "$tmp/out2.partial-$pid" "$tmp/target"
    ln -s "$tmp/target" "$tmp/out.partial-$dead"
    run 0 '^$' "$rnicsim" run "$seed" --out "$tmp/out" --set output.plot=false
    [ ! -e "$tmp/out.partial-$pid" ] || fail "the stale staging folder out.partial-$pid is still there"
    [ -f "$tmp/out/summary.json" ] || fail "the run wrote no $tmp/out/summary.json"
    for kept in "out.partial-$$" out.partial-12x out.partial- "other.partial-$pid" \
      "out2.partial-$pid" target "out.partial-$dead"; do
      [ -e "$tmp/$kept" ] || fail "$kept was removed"
    done
    ;;

  *)
    fail "unknown case $case_name"
    ;;
esac
echo "PASS: $case_name"
