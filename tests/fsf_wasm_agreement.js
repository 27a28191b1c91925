// Yari Shogi: fusekilab's perft against Fairy-Stockfish's (WebAssembly build, built-in
// "yarishogi"), spoken to over USI the way `fusekilab play` speaks to it: positions reached by
// random play among the engine's own legal moves (its `go perft 1`), then its counts (`go perft
// N`) against `fusekilab perft --positions` twice: from the engine's SFEN of the position (its
// SFEN read by us) and from the start position plus the engine's moves (its USI moves read by
// us). Every disagreement is printed with the root moves whose counts differ (fusekilab's
// --divide of that position); exit 1 if any.
//
//   node tests/fsf_wasm_agreement.js FUSEKILAB ENGINE [positions] [seed]
'use strict';
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [bin, engineCmd, countArg, seedArg] = process.argv.slice(2);
if (!bin || !engineCmd) {
  console.error('usage: node fsf_wasm_agreement.js FUSEKILAB ENGINE [positions] [seed]');
  process.exit(2);
}
const count = Number(countArg || 200);
let seed = Number(seedArg || 2027);
const START = 'rnnkbbr/7/ppppppp/7/7/7/PPPPPPP/7/RBBKNNR b - 1';

// A small deterministic generator (LCG), so a seed names the positions.
function below(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor((seed / 2147483648) * n);
}

// The engine as a line reader: send a command, wait for the line that starts with a prefix.
const engine = spawn(engineCmd, [], { stdio: ['pipe', 'pipe', 'inherit'] });
let buffer = '';
let lines = [];
let waiter = null;
engine.stdout.on('data', (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf('\n')) >= 0) {
    lines.push(buffer.slice(0, nl).replace(/\r$/, ''));
    buffer = buffer.slice(nl + 1);
  }
  if (waiter) waiter();
});
engine.on('exit', (code) => {
  if (!finished) {
    console.error(`the engine exited (${code})`);
    process.exit(1);
  }
});
let finished = false;
function send(cmd) {
  engine.stdin.write(cmd + '\n');
}
// Lines up to and including the first that starts with `prefix`.
function until(prefix, seconds = 120) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${prefix}' from the engine in time`)), seconds * 1000);
    const check = () => {
      const i = lines.findIndex((l) => l.startsWith(prefix));
      if (i < 0) return;
      const got = lines.slice(0, i + 1);
      lines = lines.slice(i + 1);
      waiter = null;
      clearTimeout(timer);
      resolve(got);
    };
    waiter = check;
    check();
  });
}

function position(moves) {
  return `position sfen ${START}` + (moves.length ? ` moves ${moves.join(' ')}` : '');
}

// The engine's divide: root move -> count.
async function engineDivide(moves, depth) {
  send(position(moves));
  send(`go perft ${depth}`);
  const out = await until('Nodes searched:');
  const divide = new Map();
  for (const l of out) {
    const m = /^(\S+): (\d+)$/.exec(l);
    if (m) divide.set(m[1], Number(m[2]));
  }
  return divide;
}

async function engineSfen(moves) {
  send(position(moves));
  send('d');
  const out = await until('Sfen:');
  return out[out.length - 1].slice(5).trim();
}

function ourDivide(args) {
  const out = execFileSync(bin, ['perft', '--rules', 'yari', '--divide', ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const divide = new Map();
  for (const l of out.split('\n')) {
    const m = /^(\S+): (\d+)$/.exec(l);
    if (m) divide.set(m[1], Number(m[2]));
  }
  return divide;
}

function differences(theirs, ours) {
  const out = [];
  for (const [m, n] of theirs) if (ours.get(m) !== n) out.push(`${m} engine ${n} fusekilab ${ours.get(m) ?? '-'}`);
  for (const [m, n] of ours) if (!theirs.has(m)) out.push(`${m} engine - fusekilab ${n}`);
  return out;
}

async function main() {
  const t0 = Date.now();
  send('usi');
  const usi = await until('usiok', 60);
  const variant = usi.find((l) => / name (USI|UCI)_Variant /.test(l));
  if (!variant || !/ var yarishogi( |$)/.test(variant)) throw new Error('the engine offers no yarishogi');
  send(`setoption name ${/ name (\S+) /.exec(variant)[1]} value yarishogi`);
  send('isready');
  await until('readyok', 60);

  // Positions: random games from the start to a random ply (0..160), each cut at up to four
  // random plies along it (a finished game is kept as it ends).
  const games = [[]];
  while (games.length < count) {
    const plies = below(161);
    const cuts = new Set([plies, below(plies + 1), below(plies + 1), below(plies + 1)]);
    const moves = [];
    for (let i = 0; i <= plies && games.length < count; ++i) {
      if (cuts.has(i)) games.push(moves.slice());
      if (i === plies) break;
      const legal = [...(await engineDivide(moves, 1)).keys()];
      if (!legal.length) {
        if (!cuts.has(i)) games.push(moves.slice());
        break;
      }
      moves.push(legal[below(legal.length)]);
    }
  }

  // The engine's divide and SFEN of each; then fusekilab's counts in one run a depth and way
  // (the process start dominates a single small perft), from its SFEN and from its moves.
  const depths = games.map((_, i) => (i === 0 ? 4 : i % 4 === 0 ? 3 : 2));
  const theirs = [];
  const sfens = [];
  for (let i = 0; i < games.length; ++i) {
    theirs.push(await engineDivide(games[i], depths[i]));
    sfens.push(await engineSfen(games[i]));
  }
  const ways = [
    ['its SFEN', (i) => sfens[i], (i) => ['--sfen', sfens[i]]],
    ['its moves', (i) => (games[i].length ? `${START} moves ${games[i].join(' ')}` : START),
     (i) => ['--sfen', START, '--moves', games[i].join(' ')]],
  ];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fsf-wasm-'));
  let bad = 0;
  let nodes = 0;
  const atDepth = { 2: 0, 3: 0, 4: 0 };
  for (const d of [2, 3, 4]) {
    const idx = games.map((_, i) => i).filter((i) => depths[i] === d);
    atDepth[d] = idx.length;
    for (const [name, line, args] of ways) {
      const file = path.join(tmp, 'positions');
      fs.writeFileSync(file, idx.map(line).join('\n') + '\n');
      const out = execFileSync(bin, ['perft', '--rules', 'yari', '--depth', String(d), '--positions', file], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }).trim().split('\n');
      if (out.length !== idx.length) throw new Error(`fusekilab printed ${out.length} counts for ${idx.length} positions`);
      idx.forEach((i, k) => {
        let total = 0;
        for (const n of theirs[i].values()) total += n;
        if (Number(out[k]) === total) return;
        // Which root moves differ: fusekilab's divide of the same position.
        ++bad;
        const diff = differences(theirs[i], ourDivide([...args(i), '--depth', String(d)]));
        console.log(`DIFFER depth ${d} (${name}): engine ${total}, fusekilab ${out[k]}: ${sfens[i]} (moves: ${games[i].join(' ') || '-'})`);
        console.log(`  ${diff.join('; ') || 'the root moves agree; only the total differs'}`);
      });
    }
    for (const i of idx) for (const n of theirs[i].values()) nodes += n;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  finished = true;
  send('quit');
  console.log(
    `Fairy-Stockfish (wasm) agreement (yarishogi): ${games.length} positions (start at depth 4, ` +
      `${atDepth[3]} at depth 3, ${atDepth[2]} at depth 2), ${nodes} leaf nodes, each from its SFEN and from ` +
      `its moves, ${bad} disagreements, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  process.exit(bad ? 1 : 0);
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
