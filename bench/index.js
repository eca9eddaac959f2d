// Benchmark: `kwatch index` — build time of the --by indices over 100k pods, ByIndex latency at 10k vs 100k
// objects for the same result size, and the heap the indices take. Uses the build (npm run build first).
// Usage: node --expose-gc bench/index.js [--pods 100000] [--per-value 100]
//
// Pods are the sim's own (its workload generator, managedFields off), cloned to the wanted count with
// fresh metadata and spec.nodeName and the rest shared: the indices see realistic keys and values while
// the heap stays small enough to measure the indices themselves.
import { fileURLToPath } from 'node:url';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const SPECS = ['nodeName', 'phase', 'namespace', 'label:app', 'owner'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x, d = 2) => +x.toFixed(d);

/** `count` realistic pods spread evenly over count/perNode nodes (2% unscheduled). */
async function makePods(count, perNode) {
  const { SimStore } = await import('../dist/sim/store.js');
  const { WorkloadGenerator } = await import('../dist/sim/workload.js');
  const store = new SimStore({});
  new WorkloadGenerator(store, { seed: 1, nodes: 10, pods: 500, churn: 0, managedFields: false }).populate();
  const templates = store.list(PODS);
  const nodes = Math.max(1, Math.round(count / perNode));
  const out = new Array(count);
  for (let i = 0; i < count; i++) {
    const t = templates[i % templates.length];
    const unscheduled = i % 50 === 49;
    out[i] = {
      ...t,
      metadata: { ...t.metadata, name: `${t.metadata.name}-${i.toString(36)}`, uid: `uid-${i}`, resourceVersion: String(1000 + i) },
      spec: unscheduled ? { ...t.spec, nodeName: undefined } : { ...t.spec, nodeName: `node-${String(i % nodes).padStart(4, '0')}` },
      status: unscheduled ? { phase: 'Pending' } : t.status,
    };
  }
  return out;
}

/** Median ms of `fn` over `runs` runs of `inner` calls each, per call. */
function timeCalls(fn, { runs = 15, inner = 200 } = {}) {
  const samples = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    for (let i = 0; i < inner; i++) fn(i);
    samples.push((performance.now() - start) / inner);
  }
  return median(samples);
}

function heapAfterGc() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

export async function benchIndex({ pods = 100_000, perValue = 100 } = {}) {
  const { Indexer } = await import('../dist/informer/indexer.js');
  const { indexersFromSpecs, indexRows, approxIndexBytes } = await import('../dist/informer/index-report.js');
  const indexers = indexersFromSpecs(SPECS);
  const big = await makePods(pods, perValue);
  const small = big.slice(0, pods / 10).map((p, i) => (p.spec.nodeName === undefined ? p : { ...p, spec: { ...p.spec, nodeName: `node-${String(i % (pods / 10 / perValue)).padStart(4, '0')}` } }));

  // Build: the store alone (the reference), then the store with each index, then with all of them;
  // configurations interleaved, each sample after a full GC, medians of 7 after a warm-up round.
  const configs = [['storeOnly', {}], ...SPECS.map((s) => [s, { [s]: indexers[s] }]), ['all', indexers]];
  const samples = Object.fromEntries(configs.map(([name]) => [name, []]));
  for (let r = 0; r < 8; r++) {
    for (const [name, ixs] of configs) {
      let ix = new Indexer({ indexers: ixs, noNamespaceIndex: true });
      globalThis.gc();
      const start = performance.now();
      ix.replace(big);
      if (r > 0) samples[name].push(performance.now() - start);
      ix = undefined;
    }
  }
  const storeOnlyMs = median(samples.storeOnly);
  const perIndexMs = Object.fromEntries(SPECS.map((s) => [s, round(median(samples[s]) - storeOnlyMs)]));
  const allMs = median(samples.all);

  // ByIndex at 10k vs 100k objects, same result size (runs interleaved); a full scan (no index) as the reference.
  const prepare = (objs) => {
    const ix = new Indexer({ indexers: { nodeName: indexers.nodeName }, noNamespaceIndex: true });
    ix.replace(objs);
    const values = ix.listIndexFuncValues('nodeName').filter((v) => v !== '<none>');
    return { ix, values, list: ix.list(), objects: objs.length, resultSize: ix.byIndex('nodeName', values[0]).length, byIndex: [], indexKeys: [], warm: [] };
  };
  const bigResults = big.map((p, i) => (p.spec.nodeName === undefined ? p : { ...p, spec: { ...p.spec, nodeName: `node-${String(i % (pods / perValue / 10)).padStart(4, '0')}` } }));
  const sides = [prepare(small), prepare(big), prepare(bigResults)];
  for (let r = 0; r < 31; r++) {
    for (const s of sides) {
      s.byIndex.push(timeCalls((i) => s.ix.byIndex('nodeName', s.values[i % s.values.length]), { runs: 1, inner: 1000 }) * 1000);
      s.indexKeys.push(timeCalls((i) => s.ix.indexKeys('nodeName', s.values[i % s.values.length]), { runs: 1, inner: 1000 }) * 1000);
      s.warm.push(timeCalls(() => s.ix.byIndex('nodeName', s.values[0]), { runs: 1, inner: 1000 }) * 1000);
    }
  }
  const [at10k, at100k, at100kBig] = sides.map((s) => ({
    objects: s.objects,
    resultSize: s.resultSize,
    byIndexUs: round(median(s.byIndex.slice(1))),
    indexKeysUs: round(median(s.indexKeys.slice(1))),
    warmUs: round(median(s.warm.slice(1))),
    scanUs: round(timeCalls((i) => s.list.filter((o) => o.spec?.nodeName === s.values[i % s.values.length]), { runs: 5, inner: 5 }) * 1000, 0),
  }));
  sides.length = 0;

  // Memory: heap of a store with the indices minus a store without them.
  let keep;
  const h0 = heapAfterGc();
  keep = new Indexer({ indexers: {}, noNamespaceIndex: true });
  keep.replace(big);
  const h1 = heapAfterGc();
  keep = new Indexer({ indexers, noNamespaceIndex: true });
  keep.replace(big);
  const h2 = heapAfterGc();
  const estimated = SPECS.reduce((sum, s) => sum + approxIndexBytes(indexRows(keep, s)), 0);
  keep = undefined;
  return {
    pods,
    buildMs: { storeOnly: round(storeOnlyMs), allIndices: round(allMs), indicesOnly: round(allMs - storeOnlyMs), perIndex: perIndexMs },
    byIndex: { at10k, at100k, at100kBig, growth: round(at100k.byIndexUs / at10k.byIndexUs), warmGrowth: round(at100k.warmUs / at10k.warmUs), growthWithResult: round(at100kBig.byIndexUs / at100k.byIndexUs), scanGrowth: round(at100k.scanUs / at10k.scanUs) },
    memory: { storeBytes: h1 - h0, indicesBytes: h2 - h1, bytesPerObject: round((h2 - h1) / pods, 1), estimatedBytes: estimated },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!globalThis.gc) {
    console.error('run with node --expose-gc bench/index.js');
    process.exit(1);
  }
  const arg = (name, def) => {
    const i = process.argv.indexOf(name);
    return i === -1 ? def : Number(process.argv[i + 1]);
  };
  const r = await benchIndex({ pods: arg('--pods', 100_000), perValue: arg('--per-value', 100) });
  const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
  const rows = [
    ['measure', 'value'],
    [`build, store only (${r.pods} pods)`, `${r.buildMs.storeOnly} ms`],
    [`build, store + ${SPECS.length} indices (${SPECS.join(', ')})`, `${r.buildMs.allIndices} ms (indices: ${r.buildMs.indicesOnly} ms)`],
    ...Object.entries(r.buildMs.perIndex).map(([s, ms]) => [`  one index: ${s}`, `+${ms} ms`]),
    [`ByIndex, ${r.byIndex.at10k.resultSize} results of ${r.byIndex.at10k.objects}`, `${r.byIndex.at10k.byIndexUs} µs (one value again and again ${r.byIndex.at10k.warmUs} µs; IndexKeys ${r.byIndex.at10k.indexKeysUs} µs; full scan ${r.byIndex.at10k.scanUs} µs)`],
    [`ByIndex, ${r.byIndex.at100k.resultSize} results of ${r.byIndex.at100k.objects}`, `${r.byIndex.at100k.byIndexUs} µs (one value again and again ${r.byIndex.at100k.warmUs} µs; IndexKeys ${r.byIndex.at100k.indexKeysUs} µs; full scan ${r.byIndex.at100k.scanUs} µs)`],
    [`ByIndex, ${r.byIndex.at100kBig.resultSize} results of ${r.byIndex.at100kBig.objects}`, `${r.byIndex.at100kBig.byIndexUs} µs (one value again and again ${r.byIndex.at100kBig.warmUs} µs; IndexKeys ${r.byIndex.at100kBig.indexKeysUs} µs; full scan ${r.byIndex.at100kBig.scanUs} µs)`],
    ['ByIndex growth: 10x the objects, same results', `${r.byIndex.growth}x over rotating values, ${r.byIndex.warmGrowth}x for one value (full scan: ${r.byIndex.scanGrowth}x)`],
    ['ByIndex growth: same objects, 10x the results', `${r.byIndex.growthWithResult}x`],
    [`heap of the ${SPECS.length} indices`, `${mb(r.memory.indicesBytes)} (${r.memory.bytesPerObject} B/object; estimate ${mb(r.memory.estimatedBytes)})`],
    ['heap of the store alone (map of shared objects)', mb(r.memory.storeBytes)],
  ];
  const w = Math.max(...rows.map((x) => x[0].length));
  for (const [a, b] of rows) console.log(`${a.padEnd(w)}  ${b}`);
  console.log(JSON.stringify(r));
}
