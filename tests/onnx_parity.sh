#!/usr/bin/env bash
# ONNX export against onnxruntime-web, the runtime of the fusekishogi.com front end (npm, wasm
# backend, installed into a folder of the build): a 6x64 site-format network (with and without
# --value) and a small native one, exported by `fusekilab export --onnx`, must give LibTorch's
# logits within 1e-4 and the same best legal drop on 1,000 random placement positions; a
# perturbed weight and a damaged file must fail the comparison; a bad --network must exit 2
# without writing. Skipped (exit 77) when Node.js or npm is missing or the npm registry is
# unreachable.
#   tests/onnx_parity.sh FUSEKILAB ONNX_PARITY_DATA FOLDER
set -euo pipefail
bin="$1"
data="$2"
dir="$3"
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null && command -v npm >/dev/null || { echo "SKIP: no Node.js/npm"; exit 77; }
mkdir -p "$dir/npm"
if [ ! -d "$dir/npm/node_modules/onnxruntime-web" ]; then
  npm install --prefix "$dir/npm" --ignore-scripts --no-audit --no-fund --loglevel=error \
    onnxruntime-web@1 >"$dir/npm.log" 2>&1 ||
    { echo "SKIP: npm install failed: $(tail -3 "$dir/npm.log")"; exit 77; }
fi
"$bin" export --help | grep -q -- --onnx || { echo "FAIL: export has no --onnx"; exit 1; }
modules="$dir/npm/node_modules"
work="$dir/run"
rm -rf "$work"
mkdir -p "$work"
compare() { node "$here/onnx_parity.js" "$modules" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }
must_fail() {  # a comparison that has to find the difference
  local what="$1"
  shift
  if compare "$@"; then fail "$what was not detected"; fi
  echo "ok: $what detected"
}

for format in site native; do
  d="$work/$format"
  "$data" "$format" "$d" 1000 $([ "$format" = site ] && echo 14 || echo 15)
  "$bin" export --network "$d/net.ckpt" --onnx "$d/net.onnx"
  if [ "$format" = site ]; then
    compare "$d/net.onnx" "$d" novalue
    "$bin" export --network "$d/net.ckpt" --onnx "$d/net_value.onnx" --value
    compare "$d/net_value.onnx" "$d" value
    full="$d/net_value.onnx"
  else
    compare "$d/net.onnx" "$d" value
    full="$d/net.onnx"
  fi
  # Through a checkpoint and the command line, byte for byte the library's export.
  cmp "$full" "$d/direct.onnx" || fail "$format: the command line's file differs from export_onnx's"
  # A policy bias moved by 1e-3, and a damaged weight in the file: both must be caught.
  "$bin" export --network "$d/perturbed.ckpt" --onnx "$d/perturbed.onnx" >/dev/null
  must_fail "$format: a policy bias moved by 1e-3" "$d/perturbed.onnx" "$d" \
    "$([ "$format" = site ] && echo novalue || echo value)" 100
  cp "$d/net.onnx" "$d/damaged.onnx"
  size=$(stat -c %s "$d/damaged.onnx")
  # 4 bytes in the middle of the file: inside the trunk's weights (raw float data).
  printf '\x7f\x7f\x7f\x7f' | dd of="$d/damaged.onnx" bs=1 seek=$((size / 2)) conv=notrunc status=none
  must_fail "$format: a damaged weight in the file" "$d/damaged.onnx" "$d" \
    "$([ "$format" = site ] && echo novalue || echo value)" 100
done

# Bad --network: one clear error, exit 2, nothing written.
for network in "$work/missing.ckpt" "$work/site/header.json"; do
  out="$work/bad.onnx"
  set +e
  msg=$("$bin" export --network "$network" --onnx "$out" 2>&1)
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "export --network $network: exit $rc, want 2 ($msg)"
  [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] || fail "export --network $network: not one line: $msg"
  [ ! -e "$out" ] || fail "export --network $network wrote $out"
  ls "$work" | grep -q 'bad.onnx' && fail "export --network $network left $(ls "$work")"
  echo "ok: bad --network $(basename "$network"): $msg"
done
set +e
msg=$("$bin" export --network "$work/native/net.ckpt" --onnx "$work/no/such/dir/x.onnx" 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "export into a missing folder: exit $rc, want 2 ($msg)"
echo "ok: unwritable --onnx: $msg"
echo "onnx parity: all checks passed"
