// A replay keeps one copy of the state (issue 43): the recorded list is let go once served, each version of an
// object shares its unchanged parts with the version before, and the replay process lets V8's heap grow at most 2x
// past its live size unless the user sized the heap.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { RecordingEntry } from '../../../src/informer/recording/recording-format.js';
import { parseRecording } from '../../../src/informer/recording/recording-reader.js';
import { RecordedListerWatcher } from '../../../src/informer/recording/recorded-lister-watcher.js';
import { buildTimeline, type RecordedList, type RecordedWatch } from '../../../src/informer/recording/recording-timeline.js';
import { shareUnchanged } from '../../../src/informer/recording/unchanged-parts.js';
import { VirtualClock } from '../../../src/informer/recording/virtual-clock.js';
import type { KubeObject } from '../../../src/informer/types.js';
import { limitHeapGrowth } from '../../../src/cli/heap-growth.js';
import { HEADER, recordingText } from './recording-fixture.js';

function richPod(name: string, rv: number, phase = 'Running'): KubeObject {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: String(rv), labels: { app: 'web' } },
    spec: { containers: [{ name: 'c', image: 'nginx:1', env: [{ name: 'A', value: 'x'.repeat(50) }] }] },
    status: { phase, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** One list of `pods` pods in pages of 2, then one watch of `events` MODIFIED events over them. */
function recording(pods: number, events: number, phaseOf = (_i: number) => 'Running'): string {
  const items = Array.from({ length: pods }, (_, i) => richPod(`p${i}`, 1 + i));
  const entries: RecordingEntry[] = [];
  for (let p = 0; p * 2 < pods; p++) {
    const last = (p + 1) * 2 >= pods;
    entries.push({ rec: 'list', t: 1, res: 0, conn: 1 + p, options: { limit: 2, ...(p ? { continue: `c${p}` } : {}) }, page: { metadata: { resourceVersion: '100', ...(last ? {} : { continue: `c${p + 1}` }) }, items: items.slice(p * 2, (p + 1) * 2) } });
  }
  entries.push({ rec: 'watch-start', t: 2, res: 0, conn: 99, options: { resourceVersion: '100' } });
  for (let i = 0; i < events; i++) entries.push({ rec: 'event', t: 3 + i, res: 0, conn: 99, event: { type: 'MODIFIED', object: richPod(`p${i % pods}`, 101 + i, phaseOf(i)) } });
  return recordingText(HEADER, entries);
}

describe('each version shares what did not change with the one before', () => {
  it('shares equal parts by identity, keeps changed ones, and serializes exactly as before', () => {
    const prev = JSON.parse('{"a":{"b":[1,{"c":"long text"}]},"d":{"e":1},"f":{"x":1,"y":2},"g":[1,2]}');
    const text = '{"a":{"b":[1,{"c":"long text"}]},"d":{"e":2},"f":{"y":2,"x":1},"g":[1,2,3]}';
    const next = JSON.parse(text);
    expect(shareUnchanged(next, prev)).toBe(false);
    expect(next.a).toBe(prev.a);
    expect(next.d).not.toBe(prev.d);
    // The same keys in another order serialize differently: not shared.
    expect(next.f).not.toBe(prev.f);
    expect(next.g).not.toBe(prev.g);
    expect(JSON.stringify(next)).toBe(text);
    const same = JSON.parse(JSON.stringify(prev));
    expect(shareUnchanged(same, prev)).toBe(true);
    expect(same).not.toBe(prev);
  });

  it('never sets a prototype through a "__proto__" key', () => {
    const prev = JSON.parse('{"__proto__":{"polluted":true},"a":1}');
    const next = JSON.parse('{"__proto__":{"polluted":true},"a":1}');
    shareUnchanged(next, prev);
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.hasOwn(next, '__proto__')).toBe(true);
  });

  it('a recorded event shares its unchanged parts with the listed version and the events before it', () => {
    const text = recording(2, 4, (i) => (i === 2 ? 'Failed' : 'Running'));
    const timeline = buildTimeline(parseRecording(text).entries());
    const list = timeline.op(0) as RecordedList;
    const listed = list.pages[0].page.items[0];
    const watch = timeline.op(1) as RecordedWatch;
    const e0 = timeline.event(watch, 0)!.event.object;
    const e2 = timeline.event(watch, 2)!.event.object;
    expect(e0).not.toBe(listed);
    expect(e0.spec).toBe(listed.spec);
    expect(e0.metadata).not.toBe(listed.metadata);
    expect(e0.metadata.labels).toBe(listed.metadata.labels);
    expect(e2.spec).toBe(listed.spec);
    // p0's phase changed at event 2: its status is its own, its conditions still shared.
    const status = (o: KubeObject) => o.status as { conditions: unknown };
    expect(status(e2)).not.toBe(status(e0));
    expect(status(e2).conditions).toBe(status(e0).conditions);
    // Nothing the user recorded changed.
    const recorded = text.trim().split('\n').slice(1).map((l) => JSON.parse(l) as RecordingEntry);
    expect(JSON.stringify(timeline.event(watch, 2))).toBe(JSON.stringify(recorded.find((e) => e.rec === 'event' && e.event.object.metadata.resourceVersion === '103')));
  });
});

/** Every page of the recorded list, as the pager asks for them; what is left is a weak reference to each object. */
async function listAll(lw: RecordedListerWatcher): Promise<WeakRef<KubeObject>[]> {
  const listed: WeakRef<KubeObject>[] = [];
  let page = await lw.list({ limit: 2 });
  for (;;) {
    for (const o of page.items) listed.push(new WeakRef(o));
    if (!page.metadata.continue) return listed;
    page = await lw.list({ limit: 2, continue: page.metadata.continue });
  }
}

describe('the recorded list is let go once served', () => {
  it('after its last page, the listed objects are not kept once newer versions replaced them', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const pods = 6;
    const timeline = buildTimeline(parseRecording(recording(pods, 2 * pods)).entries());
    const lw = new RecordedListerWatcher({ timeline, clock: new VirtualClock(1e9), startEpoch: 0 });
    const listed = await listAll(lw);
    expect(listed).toHaveLength(pods);
    const stream = await lw.watch({ resourceVersion: '100' });
    let events = 0;
    for await (const _ev of stream) if (++events === 2 * pods) break;
    // A new turn (WeakRefs read in this one stay alive to its end), then a full collection.
    await new Promise((r) => setTimeout(r, 0));
    gc();
    expect(listed.map((w, i) => (w.deref() === undefined ? -1 : i)).filter((i) => i >= 0)).toEqual([]);
  });
});

describe('the replay process lets V8 grow its heap at most 2x past the live size', () => {
  it('unless the user sized the heap', () => {
    expect(limitHeapGrowth(100, ['--max-old-space-size=4096'], '')).toBe(false);
    expect(limitHeapGrowth(100, [], '--max-old-space-size=512')).toBe(false);
    expect(limitHeapGrowth(100, [], '--heap-growing-percent=300')).toBe(false);
    expect(limitHeapGrowth(100, ['--enable-source-maps'], '--no-warnings')).toBe(true);
  });
});
