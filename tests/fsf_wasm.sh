#!/usr/bin/env bash
# Yari Shogi against Fairy-Stockfish: its WebAssembly build (npm, pinned in
# scripts/fairy-stockfish-wasm, installed into a folder of the build), since Debian's 11.1 has no
# yarishogi and cannot be given one. Skipped (exit 77) when Node.js or npm is missing or the npm
# registry is unreachable.
#   tests/fsf_wasm.sh agreement|play FUSEKILAB FOLDER
set -euo pipefail
mode="$1"
bin="$2"
export FUSEKILAB_FSF_WASM_DIR="$3"
here=$(cd "$(dirname "$0")" && pwd)
engine="$here/../scripts/fairy-stockfish-wasm"
command -v node >/dev/null && command -v npm >/dev/null || { echo "SKIP: no Node.js/npm"; exit 77; }
mkdir -p "$FUSEKILAB_FSF_WASM_DIR"
"$engine" --install >"$FUSEKILAB_FSF_WASM_DIR/npm.log" 2>&1 ||
  { echo "SKIP: npm install failed: $(tail -3 "$FUSEKILAB_FSF_WASM_DIR/npm.log")"; exit 77; }

case "$mode" in
  agreement) exec node "$here/fsf_wasm_agreement.js" "$bin" "$engine" 200 2027 ;;
  play) ;;
  *) echo "unknown mode '$mode'"; exit 2 ;;
esac

# Complete games with Fairy-Stockfish on either side; every one must end in a real result: no
# void game, no engine failure, no illegal move. The built-in engine's noise varies the games.
fsf="usi:$engine:nodes=2000"
builtin="builtin:nodes=300:noise=60"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$bin" play --quiet --rules yari --sente "$fsf" --gote "$builtin" --games 4 --seed 1 --format jsonl >"$out"
"$bin" play --quiet --rules yari --sente "$builtin" --gote "$fsf" --games 4 --seed 2 --format jsonl >>"$out"
node - "$out" <<'JS'
const lines = require('fs').readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
let bad = 0;
const records = new Set();
for (const l of lines) {
  const g = JSON.parse(l);
  const real = ['sente', 'gote', 'draw'].includes(g.winner) &&
               !['illegal_move', 'engine_failure', 'none'].includes(g.reason) && !g.note;
  if (!real) ++bad;
  records.add(g.record);
  console.log(`${real ? 'ok ' : 'BAD'} ${g.sente} vs ${g.gote}: ${g.winner} by ${g.reason} after ` +
              `${g.plies} plies${g.note ? ` (${g.note})` : ''}`);
}
if (lines.length !== 8) { console.log(`expected 8 games, got ${lines.length}`); bad = 1; }
if (records.size < 2) { console.log('every game was the same'); bad = 1; }
process.exit(bad ? 1 : 0);
JS
