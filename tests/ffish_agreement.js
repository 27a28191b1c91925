// Yari Shogi: fusekilab's perft against ffish (Fairy-Stockfish's rules compiled to WebAssembly,
// its built-in "yarishogi") on positions reached by random play, at depths 2 and 3.
//
//   node tests/ffish_agreement.js FUSEKILAB FFISH_DIR [positions] [seed]
//
// FFISH_DIR holds node_modules/ffish (npm install ffish). The positions go to fusekilab as
// ffish's own FEN strings (fusekilab reads Fairy-Stockfish FEN), so the notation is tested too.
// Every disagreement is printed with the moves only one side generates; exit 1 if any.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [bin, ffishDir, countArg, seedArg] = process.argv.slice(2);
if (!bin || !ffishDir) {
  console.error('usage: node ffish_agreement.js FUSEKILAB FFISH_DIR [positions] [seed]');
  process.exit(2);
}
const count = Number(countArg || 300);
let seed = Number(seedArg || 2026);

// Emscripten's loader in ffish 0.7 fetch()es its .wasm when fetch exists, which fails for a file
// path under Node 18+; without fetch it reads the file.
delete globalThis.fetch;
const ffish = require(path.resolve(ffishDir, 'node_modules', 'ffish'));

// A small deterministic generator (LCG), so a seed names the positions.
function below(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor((seed / 2147483648) * n);
}

function moves(board) {
  return board.legalMoves().split(' ').filter(Boolean);
}

function perft(board, depth) {
  if (depth === 1) return board.numberLegalMoves();
  let n = 0;
  for (const m of moves(board)) {
    board.push(m);
    n += perft(board, depth - 1);
    board.pop();
  }
  return n;
}

// ffish's UCI-style move (files a..g from the first player's left, ranks 1..9 from the bottom)
// as USI on the 7-file board (files 7..1 from the left, ranks a..i from the top).
function toUsi(m) {
  const sq = (s) => String(7 - (s.charCodeAt(0) - 97)) + String.fromCharCode(97 + 9 - Number(s.slice(1)));
  const drop = /^([A-Z])@([a-g][1-9])$/.exec(m);
  if (drop) return `${drop[1]}*${sq(drop[2])}`;
  const mv = /^([a-g][1-9])([a-g][1-9])(\+?)$/.exec(m);
  if (!mv) throw new Error(`unexpected ffish move '${m}'`);
  return sq(mv[1]) + sq(mv[2]) + mv[3];
}

function fusekilab(args) {
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

ffish.onRuntimeInitialized = () => {
  const t0 = Date.now();
  // Positions: random games from the start, cut at a random ply (0..160); a finished game is
  // kept as it is (no legal move: perft 0 on both sides).
  const positions = [];
  while (positions.length < count) {
    const board = new ffish.Board('yarishogi');
    const plies = below(161);
    for (let i = 0; i < plies; ++i) {
      const ms = moves(board);
      if (!ms.length) break;
      board.push(ms[below(ms.length)]);
    }
    positions.push(board.fen());
    board.delete();
  }
  const depths = positions.map((_, i) => (i % 4 === 0 ? 3 : 2));
  const expected = positions.map((fen, i) => {
    const board = new ffish.Board('yarishogi', fen);
    const n = depths[i] === 0 ? 1 : perft(board, depths[i]);
    board.delete();
    return n;
  });

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ffish-'));
  const ours = new Array(positions.length);
  for (const d of [2, 3]) {
    const idx = positions.map((_, i) => i).filter((i) => depths[i] === d);
    const file = path.join(tmp, `depth${d}.fen`);
    fs.writeFileSync(file, idx.map((i) => positions[i]).join('\n') + '\n');
    const out = fusekilab(['perft', '--rules', 'yari', '--depth', String(d), '--positions', file])
      .trim()
      .split('\n');
    if (out.length !== idx.length) throw new Error(`fusekilab printed ${out.length} counts for ${idx.length} positions`);
    idx.forEach((i, k) => (ours[i] = Number(out[k])));
  }
  fs.rmSync(tmp, { recursive: true, force: true });

  let bad = 0;
  let nodes = 0;
  positions.forEach((fen, i) => {
    nodes += expected[i];
    if (ours[i] === expected[i]) return;
    ++bad;
    // Which root moves differ: ffish's list against fusekilab's.
    const board = new ffish.Board('yarishogi', fen);
    const theirs = new Set(moves(board).map(toUsi));
    board.delete();
    const mine = new Set(fusekilab(['legal', '--rules', 'yari', '--sfen', fen]).split('\n').filter(Boolean));
    const onlyTheirs = [...theirs].filter((m) => !mine.has(m));
    const onlyMine = [...mine].filter((m) => !theirs.has(m));
    console.log(`DIFFER depth ${depths[i]}: ffish ${expected[i]}, fusekilab ${ours[i]}: ${fen}`);
    console.log(`  root moves only ffish has: ${onlyTheirs.join(' ') || '-'}; only fusekilab: ${onlyMine.join(' ') || '-'}`);
  });
  const d3 = depths.filter((d) => d === 3).length;
  console.log(
    `ffish agreement (yarishogi): ${positions.length} positions (${positions.length - d3} at depth 2, ` +
      `${d3} at depth 3), ${nodes} leaf nodes, ${bad} disagreements, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  process.exit(bad ? 1 : 0);
};
