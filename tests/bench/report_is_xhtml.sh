#!/bin/sh
# clstat-bench --report on a short run, set beside a committed result file: the page must parse as
# XML (xmllint), hold an inline SVG chart, a section for the suite that ran and one for the file's,
# and fetch nothing (no src= or href= to another host).
#   report_is_xhtml.sh CLSTAT_BENCH WORK_DIR COMMITTED_RESULT.json
set -eu
bench=$1 work=$2 earlier=$3
rm -rf "$work" && mkdir -p "$work"
"$bench" --suite reduce --max-log2 12 --repeat 1 --no-peers --out "$work/run" \
  --report "$work/report.html" --compare "$earlier"
xmllint --noout "$work/report.html"
grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$work/report.html"
grep -q 'id="suite-reduce"' "$work/report.html"
suite=$(sed -n 's/.*"suite": "\([a-z-]*\)".*/\1/p' "$earlier" | head -n 1)
grep -q "id=\"suite-$suite\"" "$work/report.html"
if grep -Eq '(src|href)="(https?:)?//' "$work/report.html"; then echo "report fetches from elsewhere"; exit 1; fi
# The run's own JSON draws the same page again, with nothing run.
"$bench" --compare "$work/run.json" --report "$work/again.html"
xmllint --noout "$work/again.html"
grep -q 'id="suite-reduce"' "$work/again.html"
echo "report ok"
