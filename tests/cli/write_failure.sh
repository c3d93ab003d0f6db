#!/bin/sh
# A verb whose results cannot be written (a full disk: /dev/full) must exit non-zero and say so
# on stderr. $1: the clstat executable; the rest: the verb and its options.
exe="$1"; shift
err=$("$exe" "$@" 2>&1 >/dev/full)
rc=$?
if [ "$rc" -eq 0 ]; then echo "exit status 0 although the output could not be written"; exit 1; fi
case "$err" in
  *"writing the results to standard output failed"*) exit 0 ;;
  *) echo "unexpected message: $err"; exit 1 ;;
esac
