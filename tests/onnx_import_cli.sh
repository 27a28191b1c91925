#!/usr/bin/env bash
# ONNX import from the command line: `fusekilab match` and `eval strength` with a network's .onnx
# export give the same JSON (same score, same games) as its checkpoint for the same seed, site
# and native format; bad files are one clear error with exit 2 and nothing written; a run started
# from an .onnx plays as the file does, and one whose graph is another architecture is refused.
set -euo pipefail
bin=$(readlink -f "$1")
source "$(dirname "$0")/cli_lib.sh"
# The JSON without the network's own name.
same_json() {  # a.json b.json key-to-drop...
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in sys.argv[3:]:
    a.pop(k, None); b.pop(k, None)
if a != b:
    print("differ:", json.dumps(a), json.dumps(b)); sys.exit(1)
PY
}

for format in site native; do
  run="$dir/run-$format"
  "$bin" init --dir "$run" --network.channels 8 --network.blocks 1 --network.format "$format" \
    >/dev/null
  ckpt="$run/models/gen-0000.ckpt"
  onnx="$dir/$format.onnx"
  "$bin" export --network "$ckpt" --onnx "$onnx" --value >/dev/null
  for net in "$ckpt" "$onnx"; do
    name=$(basename "$net")
    "$bin" match --a "$net" --b uniform --games 12 --run.seed 7 --run.dir "$dir/m" \
      >"$dir/match-$name.json" 2>/dev/null || fail "match with $net"
    "$bin" eval strength --network "$net" --references uniform --games 12 \
      --referee builtin:nodes=40 --out "$dir/strength-$name.json" >/dev/null 2>&1 ||
      fail "eval strength with $net"
  done
  same_json "$dir/match-gen-0000.ckpt.json" "$dir/match-$format.onnx.json" a ||
    fail "$format: match differs between .ckpt and .onnx"
  same_json "$dir/strength-gen-0000.ckpt.json" "$dir/strength-$format.onnx.json" network ||
    fail "$format: eval strength differs between .ckpt and .onnx"
  grep -q '"wins": ' "$dir/strength-$format.onnx.json" || fail "no games played"
done
# eval table: the same table; the model named after the file's iterN.
cp "$dir/site.onnx" "$dir/fuseki_test_iter0.onnx"
for net in "$dir/run-site/models/gen-0000.ckpt" "$dir/fuseki_test_iter0.onnx"; do
  "$bin" eval table --network "$net" --first-pass 1 --adaptive false --playout builtin:nodes=20 --score games \
    --out "$dir/table-$(basename "$net")" >/dev/null 2>&1 || fail "eval table with $net"
done
/usr/bin/python3 - "$dir/table-gen-0000.ckpt/table.json" "$dir/table-fuseki_test_iter0.onnx/table.json" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["model"] == b["model"] == "iter0", (a["model"], b["model"])
a["settings"].pop("network"); b["settings"].pop("network")
assert a == b, "tables differ"
PY
  fail "eval table differs between .ckpt and .onnx"
# An .onnx as a strength reference too.
"$bin" eval strength --network "$dir/site.onnx" --references "uniform, $dir/site.onnx" --games 4 \
  --referee builtin:nodes=40 --out "$dir/refs.json" >/dev/null 2>&1 || fail "an .onnx reference"

# Bad files: one line, exit 2, nothing written.
head -c 300 "$dir/site.onnx" >"$dir/cut.onnx"
expect_error "truncated" "$bin" match --a "$dir/cut.onnx" --b uniform --games 2 --run.dir "$dir/x1"
echo "not a network" >"$dir/text.onnx"
expect_error "not an ONNX model" "$bin" eval strength --network "$dir/text.onnx" --games 2 \
  --out "$dir/x2.json"
[ ! -e "$dir/x1" ] && [ ! -e "$dir/x2.json" ] || fail "a failed load wrote something"

# Training from an .onnx: the run's first network plays exactly as the file does.
"$bin" init --dir "$dir/from-onnx" --network.init-from "$dir/site.onnx" >/dev/null 2>"$dir/init.err" ||
  fail "init --init-from an .onnx: $(cat "$dir/init.err")"
grep -q "policy and value taken from the file" "$dir/init.err" ||
  fail "init did not say what it took: $(cat "$dir/init.err")"
for net in "$dir/from-onnx/models/gen-0000.ckpt" "$dir/site.onnx"; do
  "$bin" match --a "$net" --b uniform --games 12 --run.seed 7 --run.dir "$dir/m" \
    >"$dir/init-match-$(basename "$net").json" 2>/dev/null || fail "match with $net"
done
same_json "$dir/init-match-gen-0000.ckpt.json" "$dir/init-match-site.onnx.json" a ||
  fail "the network started from the .onnx plays differently from it"
# A graph whose weights fit but whose function is another (a Relu made a Tanh): refused.
/usr/bin/python3 - "$dir/site.onnx" "$dir/other.onnx" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
i = data.index(b"\x22\x04Relu")  # op_type "Relu" (field 4, length 4)
open(sys.argv[2], "wb").write(data[:i] + b"\x22\x04Tanh" + data[i + 6:])
PY
expect_error "not fusekilab's residual architecture" \
  "$bin" pipeline --dir "$dir/p" --generations 1 --network.init-from "$dir/other.onnx" \
  --selfplay.games 2
[ ! -e "$dir/p" ] || fail "a refused --init-from wrote the run directory"
echo "onnx_import_cli: ok"
