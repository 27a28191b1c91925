#!/usr/bin/env bash
# Renders a report.html to a PNG with headless Chromium (for the docs):
#   scripts/screenshot-report.sh REPORT.html OUT.png [WIDTH,HEIGHT] [SECTION...]
# SECTION: ids of the report's <section>s to show (the table report's: summary, kings, map, band,
# compare); the others are hidden, so the picture starts with the first one shown. Without any,
# the whole page. WIDTH,HEIGHT: the window, 1150,1400 by default; the picture is that size.
# Chromium: Debian's package `chromium` (apt-get install chromium).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 REPORT.html OUT.png [WIDTH,HEIGHT] [SECTION...]" >&2
  exit 2
fi
report="$1" out="$2"
shift 2
size="1150,1400"
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+,[0-9]+$ ]]; then
  size="$1"
  shift
fi
[ -f "$report" ] || { echo "error: no report at $report" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "error: chromium not found (apt-get install chromium)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
page="$tmp/report.html"
if [ $# -gt 0 ]; then
  shown=""
  for id in "$@"; do
    [[ "$id" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "error: bad section id '$id'" >&2; exit 2; }
    grep -q "<section id=\"$id\"" "$report" || { echo "error: $report has no section '$id'" >&2; exit 2; }
    shown+="${shown:+,}section#$id"
  done
  sed "s|</head>|<style>section{display:none} $shown{display:block}</style></head>|" "$report" >"$page"
else
  cp "$report" "$page"
fi
rm -f "$out"
# --no-sandbox: Chromium refuses to start as root otherwise (CI and these machines run as root).
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
  --window-size="$size" --screenshot="$(realpath -m "$out")" "file://$(realpath "$page")" \
  >"$tmp/log" 2>&1 || true
[ -s "$out" ] || { echo "error: chromium wrote no screenshot:" >&2; tail -5 "$tmp/log" >&2; exit 1; }
echo "$out: $(stat -c %s "$out") bytes"
