// Fairy-Stockfish compiled to WebAssembly (the npm package fairy-stockfish-nnue.wasm) as a USI/UCI
// engine on stdin and stdout, for the variants Debian's fairy-stockfish 11.1 lacks: Yari Shogi
// needs custom pieces, which 11.1 cannot define (no customPiece in its variant files).
//
//   node scripts/fairy-stockfish-wasm.js DIR    (DIR/node_modules/fairy-stockfish-nnue.wasm)
//
// Normally started through scripts/fairy-stockfish-wasm, which also installs the package.
'use strict';
const path = require('path');
const readline = require('readline');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node fairy-stockfish-wasm.js DIR');
  process.exit(2);
}
const loader = path.resolve(dir, 'node_modules', 'fairy-stockfish-nnue.wasm', 'stockfish.js');
// Emscripten's loader fetch()es its .wasm when fetch exists, which fails for a file path under
// Node 18+; without fetch it reads the file.
delete globalThis.fetch;
let Stockfish;
try {
  Stockfish = require(loader);
} catch (e) {
  console.error(`fairy-stockfish-wasm: cannot load ${loader} (scripts/fairy-stockfish-wasm --install): ${e.message}`);
  process.exit(1);
}

Stockfish().then((engine) => {
  engine.addMessageListener((line) => process.stdout.write(line + '\n'));
  const input = readline.createInterface({ input: process.stdin, terminal: false });
  input.on('line', (line) => {
    if (line.trim() === 'quit') process.exit(0);
    engine.postMessage(line);
  });
  // The caller closed our input: it is gone, so is the search it started.
  input.on('close', () => process.exit(0));
});
