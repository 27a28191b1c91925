// The onnxruntime-web side of the ONNX parity test (tests/onnx_parity.sh): loads an exported
// network with the wasm backend (one thread, the site's runtime), runs the positions that
// onnx_parity_data wrote, and compares with LibTorch's outputs: max |diff| of the logits (and the
// value) within the tolerance, and the same best legal label (argmax over the legal mask).
//
//   node onnx_parity.js NODE_MODULES MODEL.onnx DATA_DIR value|novalue [LIMIT]
//
// Exit 0 when everything agrees; 1 on any disagreement or a model that fails to load or run.
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, modelPath, dataDir, valueMode, limitArg] = process.argv.slice(2);
const tolerance = 1e-4;

function floats(file) {
  const b = fs.readFileSync(path.join(dataDir, file));
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

async function main() {
  const ort = require(path.resolve(modules, 'onnxruntime-web'));
  ort.env.wasm.numThreads = 1;
  const header = JSON.parse(fs.readFileSync(path.join(dataDir, 'header.json'), 'utf8'));
  const n = Math.min(header.count, limitArg ? Number(limitArg) : header.count);
  const labels = header.policy_size;
  const session = await ort.InferenceSession.create(fs.readFileSync(modelPath),
                                                    {executionProviders: ['wasm']});
  const failures = [];
  // The names and their order: the site reads the first output as the policy.
  const wantInputs = header.inputs.map((i) => i.name);
  const wantOutputs = [header.policy_output];
  if (valueMode === 'value') wantOutputs.push(header.value_output);
  if (JSON.stringify(session.inputNames) !== JSON.stringify(wantInputs))
    failures.push(`inputs ${JSON.stringify(session.inputNames)}, want ${JSON.stringify(wantInputs)}`);
  if (JSON.stringify(session.outputNames) !== JSON.stringify(wantOutputs))
    failures.push(`outputs ${JSON.stringify(session.outputNames)}, want ${JSON.stringify(wantOutputs)}`);

  // What the site does at load: one all-zero position; the first output must be [1, labels].
  {
    const feeds = {};
    for (const i of header.inputs)
      feeds[i.name] = new ort.Tensor('float32', new Float32Array(i.planes * 81), [1, i.planes, 9, 9]);
    const out = await session.run(feeds);
    const first = out[session.outputNames[0]];
    if (JSON.stringify(first.dims) !== JSON.stringify([1, labels]))
      failures.push(`zero input: first output dims ${JSON.stringify(first.dims)}, want [1,${labels}]`);
  }

  const inputs = header.inputs.map((i) => ({...i, data: floats(i.file)}));
  const policy = floats('policy.f32');
  const value = floats('value.f32');
  const maskBytes = fs.readFileSync(path.join(dataDir, 'mask.u8'));
  let maxPolicy = 0, maxValue = 0, agree = 0, positions = 0;
  const legalArgmax = (row, offset) => {
    let best = -1;
    for (let j = 0; j < labels; ++j)
      if (maskBytes[offset + j] && (best < 0 || row[j] > row[best])) best = j;
    return best;
  };
  // Batch 1 first (what the browser runs), then larger batches: any N works.
  const batches = [];
  for (let s = 0; s < n;) {
    const size = s < 4 ? 1 : Math.min(n - s, s < 100 ? 32 : 250);
    batches.push([s, size]);
    s += size;
  }
  for (const [start, size] of batches) {
    const feeds = {};
    for (const i of inputs) {
      const per = i.planes * 81;
      feeds[i.name] = new ort.Tensor('float32', i.data.slice(start * per, (start + size) * per),
                                     [size, i.planes, 9, 9]);
    }
    const out = await session.run(feeds);
    const p = out[header.policy_output];
    if (!p || p.dims.length !== 2 || p.dims[0] !== size || p.dims[1] !== labels) {
      failures.push(`${header.policy_output} dims ${p && JSON.stringify(p.dims)}, want [${size},${labels}]`);
      break;
    }
    for (let k = 0; k < size; ++k) {
      const row = p.data.subarray(k * labels, (k + 1) * labels);
      const ref = policy.subarray((start + k) * labels, (start + k + 1) * labels);
      for (let j = 0; j < labels; ++j) maxPolicy = Math.max(maxPolicy, Math.abs(row[j] - ref[j]));
      const a = legalArgmax(row, (start + k) * labels), b = legalArgmax(ref, (start + k) * labels);
      if (a === b && a >= 0) ++agree;
      ++positions;
    }
    if (valueMode === 'value') {
      const v = out[header.value_output];
      const want = header.value_dims.slice(1);
      if (!v || JSON.stringify(v.dims) !== JSON.stringify([size, ...want])) {
        failures.push(`${header.value_output} dims ${v && JSON.stringify(v.dims)}, want ${JSON.stringify([size, ...want])}`);
        break;
      }
      for (let k = 0; k < size; ++k)
        maxValue = Math.max(maxValue, Math.abs(v.data[k] - value[start + k]));
    }
  }
  if (!(maxPolicy <= tolerance)) failures.push(`policy max |diff| ${maxPolicy} > ${tolerance}`);
  if (!(maxValue <= tolerance)) failures.push(`value max |diff| ${maxValue} > ${tolerance}`);
  if (agree !== n) failures.push(`legal argmax agrees on ${agree} of ${n} positions`);
  console.log(`onnxruntime-web ${ort.env.versions ? ort.env.versions.web : ''} wasm: ` +
              `${path.basename(modelPath)} (${header.network}), ${positions} positions ` +
              `${JSON.stringify(header.rules)}: ${header.policy_output} max |diff| ` +
              `${maxPolicy.toExponential(2)}` +
              (valueMode === 'value' ? `, ${header.value_output} max |diff| ${maxValue.toExponential(2)}` : '') +
              `, legal argmax agrees ${agree}/${n}`);
  for (const f of failures) console.log(`FAIL: ${f}`);
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  console.log(`FAIL: ${e && e.message ? e.message : e}`);
  process.exit(1);
});
