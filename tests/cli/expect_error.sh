#!/bin/sh
# One case of the CLI bad-input table (tests/cli/bad_inputs.txt): the command must end within 60 s
# with a non-zero status that is not a signal, print exactly one line on stderr containing the
# expected text, and write nothing to standard output.
# $1: the clstat executable; $2: the data folder (replaces @DATA@); $3: the expected text; the
# rest: the arguments.
exe="$1"; data="$2"; want="$3"; shift 3
args=""
for a in "$@"; do args="$args $(printf '%s' "$a" | sed "s|@DATA@|$data|g")"; done
out=$(mktemp); err=$(mktemp)
# shellcheck disable=SC2086
timeout 60 "$exe" $args >"$out" 2>"$err"
rc=$?
fail() { echo "clstat$args: $1"; echo "stderr:"; cat "$err"; rm -f "$out" "$err"; exit 1; }
[ "$rc" -eq 124 ] && fail "still running after 60 s"
[ "$rc" -eq 0 ] && fail "exit status 0"
[ "$rc" -ge 128 ] && fail "killed by signal $((rc - 128))"
[ -s "$out" ] && fail "wrote to standard output"
[ "$(wc -l < "$err")" -eq 1 ] || fail "expected one line on stderr"
grep -qF -- "$want" "$err" || fail "the message does not contain '$want'"
rm -f "$out" "$err"
exit 0
