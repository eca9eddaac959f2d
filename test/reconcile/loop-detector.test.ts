import { describe, expect, it } from 'vitest';
import { LoopDetector } from '../../src/reconcile/loop-detector.js';
import type { TriggerReason } from '../../src/reconcile/trigger.js';
import type { WriteOutcome } from '../../src/reconcile/writes.js';

const own = (rv: string): TriggerReason => ({ op: 'OnUpdate', reason: 'object updated', resource: 'deployments.apps', key: 'default/web', rv, own: true });
const outside = (rv: string): TriggerReason => ({ op: 'OnUpdate', reason: 'object updated', resource: 'deployments.apps', key: 'default/web', rv });
const write = (...changed: string[]): WriteOutcome => ({ verb: 'patch', resource: 'deployments.apps', target: 'default/web', changed, failed: false });
const HASH = 'spec.template.metadata.annotations["example.com/config-hash"]';

describe('loop detector', () => {
  it('a roller writing a new hash every run loops even when the Deployment controller\'s status updates are merged into each run', () => {
    const loops = new LoopDetector(5);
    let found;
    loops.observe('roller', 'default/web', [{ op: 'OnAdd', reason: 'object updated', rv: '1' }], [write(HASH)]);
    for (let i = 2; i < 12 && !found; i++) found = loops.observe('roller', 'default/web', [own(`${i}a`), outside(`${i}b`)], [write(HASH)]);
    expect(found).toEqual({ controller: 'roller', key: 'default/web', rounds: 6, fields: [HASH] });
  });

  it('runs that alternate between an own-write trigger and an outside-only trigger keep the field\'s streak', () => {
    const loops = new LoopDetector(3);
    const found = [];
    for (let i = 0; i < 8; i++) found.push(loops.observe('roller', 'default/web', i % 2 ? [outside(`${i}`)] : [own(`${i}`)], [write(HASH, i === 4 ? 'metadata.labels["x"]' : 'status.x')]));
    expect(found.filter(Boolean)).toEqual([expect.objectContaining({ rounds: 4, fields: [HASH] })]);
  });

  it('outside changes alone never make a loop, and a run that writes nothing ends the streak', () => {
    const loops = new LoopDetector(2);
    for (let i = 0; i < 10; i++) expect(loops.observe('c', 'default/web', [outside(`${i}`)], [write(HASH)])).toBeUndefined();
    const b = new LoopDetector(2);
    for (let i = 0; i < 10; i++) expect(b.observe('c', 'default/web', [own(`${i}`)], i % 3 === 2 ? [] : [write(HASH)])).toBeUndefined();
  });

  it('a run that writes other fields but not this one ends this field\'s streak', () => {
    const loops = new LoopDetector(2);
    const runs = [HASH, HASH, HASH, 'status.x', HASH, HASH, HASH];
    const found = runs.map((field, i) => loops.observe('c', 'default/web', [own(`${i}`)], [write(field)]));
    expect(found.filter(Boolean)).toEqual([]);
    // The same runs without the interruption loop: four in a row is past the threshold of two re-runs.
    const b = new LoopDetector(2);
    expect(runs.map((_f, i) => b.observe('c', 'default/web', [own(`${i}`)], [write(HASH)])).filter(Boolean)).toEqual([expect.objectContaining({ rounds: 3, fields: [HASH] })]);
  });

  it('says GenerationChangedPredicate would have broken a status-only loop, and not a spec loop', () => {
    const status = new LoopDetector(1);
    let f;
    for (let i = 0; i < 4 && !f; i++) f = status.observe('c', 'default/web', [own(`${i}`)], [{ ...write('status.conditions[type=Stamped].lastUpdateTime'), generation: true }]);
    expect(f?.generationChangedWouldBreak).toBe(true);
    const spec = new LoopDetector(1);
    let g;
    for (let i = 0; i < 4 && !g; i++) g = spec.observe('c', 'default/web', [own(`${i}`)], [write(HASH)]);
    expect(g).toBeDefined();
    expect(g?.generationChangedWouldBreak).toBeUndefined();
  });

  it('never proposes GenerationChangedPredicate for a kind without metadata.generation (a ConfigMap\'s annotation loop)', () => {
    const cm = new LoopDetector(1);
    let f;
    for (let i = 0; i < 4 && !f; i++) f = cm.observe('c', 'default/settings', [own(`${i}`)], [{ verb: 'patch', resource: 'configmaps', target: 'default/settings', changed: ['metadata.annotations["tick"]'], failed: false }]);
    expect(f).toMatchObject({ key: 'default/settings', fields: ['metadata.annotations["tick"]'] });
    expect(f?.generationChangedWouldBreak).toBeUndefined();
  });

  // Mutation testing (issue 39): each case below failed to be caught before.
  const runLoop = (loops: LoopDetector, key: string, writes: () => WriteOutcome[], runs: number, controller = 'c') => {
    let found;
    for (let i = 0; i < runs && !found; i++) found = loops.observe(controller, key, [own(`${key}-${i}`)], writes());
    return found;
  };

  it('follows each key, and each controller, on its own: interleaved runs of two looping keys both loop', () => {
    const loops = new LoopDetector(2);
    const found = [];
    for (let i = 0; i < 6; i++) {
      found.push(loops.observe('c', 'default/a', [own(`a${i}`)], [{ ...write(HASH), target: 'default/a' }]));
      found.push(loops.observe('c', 'default/b', [own(`b${i}`)], [{ ...write(HASH), target: 'default/b' }]));
      found.push(loops.observe('d', 'default/a', [own(`d${i}`)], [{ ...write('status.x'), target: 'default/a' }]));
    }
    expect(found.filter(Boolean).map((f) => `${f!.controller} ${f!.key}`)).toEqual(['c default/a', 'c default/b', 'd default/a']);
  });

  it('a write that failed changed nothing: a run whose only write failed ends the streak', () => {
    const loops = new LoopDetector(2);
    const runs = [false, false, true, false, false];
    expect(runs.map((failed, i) => loops.observe('c', 'default/web', [own(`${i}`)], [{ ...write(HASH), failed }])).filter(Boolean)).toEqual([]);
  });

  it('after a run that writes nothing the key starts over: a later loop is reported again', () => {
    const loops = new LoopDetector(1);
    expect(runLoop(loops, 'default/web', () => [write(HASH)], 5)).toBeDefined();
    expect(loops.observe('c', 'default/web', [own('quiet')], [])).toBeUndefined();
    expect(runLoop(loops, 'default/web', () => [write(HASH)], 5)).toBeDefined();
    expect(loops.findings).toHaveLength(2);
  });

  it('rounds is the shortest streak among the fields reported together', () => {
    const loops = new LoopDetector(2);
    // status.a changes on every run, status.b from the third on; all re-triggered from outside until the last.
    let found;
    for (let i = 0; i < 6; i++) found = loops.observe('c', 'default/web', [i === 5 ? own(`${i}`) : outside(`${i}`)], [write(...(i >= 2 ? ['status.a', 'status.b'] : ['status.a']))]);
    expect(found).toMatchObject({ rounds: 3, fields: ['status.a', 'status.b'] });
  });

  it('GenerationChangedPredicate would break a loop only when every field leaves the generation alone', () => {
    const mixed = runLoop(new LoopDetector(1), 'default/web', () => [{ ...write('status.x', HASH), generation: true }], 5);
    expect(mixed?.fields).toEqual(['status.x', HASH]);
    expect(mixed?.generationChangedWouldBreak).toBeUndefined();
    for (const field of ['status', 'metadata.labels["app"]', 'metadata.annotations["note"]']) {
      expect(runLoop(new LoopDetector(1), 'default/web', () => [{ ...write(field), generation: true }], 5)?.generationChangedWouldBreak, field).toBe(true);
    }
  });

  it('a field of another object is named with its resource and target, and is not the key\'s own status', () => {
    const other = (): WriteOutcome[] => [{ verb: 'patch', resource: 'configmaps', target: 'default/cfg', changed: ['status.conditions[type=Ready Now].x'], failed: false }];
    const found = runLoop(new LoopDetector(1), 'default/web', other, 5);
    expect(found?.fields).toEqual(['configmaps default/cfg: status.conditions[type=Ready Now].x']);
    expect(found?.generationChangedWouldBreak).toBeUndefined();
  });

  it('keeps a field path that holds a space whole (a condition type is any string)', () => {
    const field = 'status.conditions[type=Ready Now].lastUpdateTime';
    expect(runLoop(new LoopDetector(1), 'default/web', () => [write(field)], 5)?.fields).toEqual([field]);
  });
});

