import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/informer/clock.js';
import { FakeListerWatcher, fakeErrors } from '../../src/informer/fake-lister-watcher.js';
import { listPages, type ListPageInfo } from '../../src/informer/pager.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject, ListOptions, ListPage, ListerWatcher } from '../../src/informer/types.js';

const pod = (name: string): KubeObject => ({ metadata: { name, namespace: 'default' } });

function server(n: number): FakeListerWatcher {
  const lw = new FakeListerWatcher();
  lw.seed(Array.from({ length: n }, (_, i) => pod(`p${String(i).padStart(3, '0')}`)));
  return lw;
}

describe('listPages', () => {
  it('follows continue tokens and assembles every page, sending only continue and limit after the first', async () => {
    const lw = server(5);
    const res = await listPages(lw, { resourceVersion: '1005' }, { pageSize: 2 });
    expect(res.items.map((o) => o.metadata.name)).toEqual(['p000', 'p001', 'p002', 'p003', 'p004']);
    expect(res.pages).toBe(3);
    expect(res.paginatedResult).toBe(true);
    expect(lw.listRequests).toEqual([{ resourceVersion: '1005', limit: 2 }, { limit: 2, continue: 't1:2' }, { limit: 2, continue: 't2:4' }]);
  });

  it('takes the resourceVersion of the first page', async () => {
    const pages: ListPage[] = [
      { metadata: { resourceVersion: '10', continue: 'a' }, items: [pod('a')] },
      { metadata: { resourceVersion: '11' }, items: [pod('b')] },
    ];
    const lw: ListerWatcher = { list: async () => pages.shift()!, watch: async () => Promise.reject(new Error('no')) };
    const res = await listPages(lw, {}, {});
    expect(res.resourceVersion).toBe('10');
    expect(res.items).toHaveLength(2);
  });

  it('defaults to pages of 500 and sends one unpaged request with pageSize 0', async () => {
    const lw = server(3);
    await listPages(lw, { resourceVersion: '0' });
    await listPages(lw, { resourceVersion: '1003' }, { pageSize: 0 });
    expect(lw.listRequests).toEqual([{ resourceVersion: '0', limit: 500 }, { resourceVersion: '1003' }]);
  });

  it('returns a single unpaged answer as is and reports it as not paginated', async () => {
    const lw = server(3);
    const res = await listPages(lw, { resourceVersion: '0' }, { pageSize: 2 }); // the watch cache ignores limit at RV 0
    expect(res.items).toHaveLength(3);
    expect(res.pages).toBe(1);
    expect(res.paginatedResult).toBe(false);
    expect(res.resourceVersion).toBe('1003');
  });

  it('falls back to one full unpaged list at the original resourceVersion when a continue token expires', async () => {
    const lw = server(5);
    const calls: ListOptions[] = [];
    const wrapped: ListerWatcher = {
      list: async (o) => {
        calls.push(o);
        if (calls.length === 2) lw.compact(); // compaction between page 1 and page 2
        return lw.list(o);
      },
      watch: (o) => lw.watch(o),
    };
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const res = await listPages(wrapped, { resourceVersion: '1005', resourceVersionMatch: 'NotOlderThan' }, { pageSize: 2, tracer });
    expect(res.fullListFallback).toBe(true);
    expect(res.items).toHaveLength(5);
    expect(calls[2]).toEqual({ resourceVersion: '1005', resourceVersionMatch: 'NotOlderThan' });
    expect(records.some((r) => r.op === 'fallback' && r.to === 'full-list')).toBe(true);
  });

  it('does not fall back when the first page itself is expired', async () => {
    const lw = server(2);
    lw.failNextList(fakeErrors.expired());
    await expect(listPages(lw, { resourceVersion: '5' })).rejects.toMatchObject({ reason: 'Expired' });
    expect(lw.listRequests).toHaveLength(1);
  });

  it('reports each page to onPage and as a list-page trace record', async () => {
    const lw = server(3);
    const seen: ListPageInfo[] = [];
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    await listPages(lw, {}, { pageSize: 2, onPage: (p) => seen.push(p), tracer, name: 'pods' });
    expect(seen.map((p) => [p.page, p.items, p.continue, p.remainingItemCount])).toEqual([
      [1, 2, true, 1],
      [2, 1, false, undefined],
    ]);
    expect(seen[0].bytes).toBeGreaterThan(0);
    const pageRecords = records.filter((r) => r.op === 'list-page');
    expect(pageRecords).toHaveLength(2);
    expect(pageRecords[0]).toMatchObject({ stage: 'reflector', name: 'pods', page: 1, items: 2, continue: true, rv: '1003' });
  });

  it('waits out a Retry-After answer and repeats the same page', async () => {
    const lw = server(1);
    lw.failNextList(fakeErrors.tooManyRequests(2));
    const clock = new FakeClock();
    const p = listPages(lw, {}, { clock });
    await clock.advance(1999);
    expect(lw.listRequests).toHaveLength(1);
    await clock.advance(1);
    const res = await p;
    expect(res.items).toHaveLength(1);
    expect(res.retries).toBe(1);
  });

  it('waits at most the backoff cap (30 s) for a Retry-After of 999999999 s, and the trace says what was asked', async () => {
    const lw = server(1);
    lw.failNextList(fakeErrors.tooManyRequests(999_999_999));
    const clock = new FakeClock();
    const tracer = new Tracer();
    const records: TraceRecord[] = [];
    tracer.subscribe((r) => records.push(r));
    const p = listPages(lw, {}, { clock, tracer });
    await clock.advance(30_000);
    const res = await p;
    expect(res.retries).toBe(1);
    expect(records.find((r) => r.op === 'retry-after')).toMatchObject({ seconds: 30, requestedSeconds: 999_999_999, capped: true });
  });

  it('does not retry a 429 without Retry-After', async () => {
    const lw = server(1);
    lw.failNextList(fakeErrors.tooManyRequests());
    await expect(listPages(lw, {})).rejects.toMatchObject({ httpCode: 429 });
  });

  it('stops when the signal aborts', async () => {
    const lw = server(1);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(listPages(lw, {}, { signal: ac.signal })).rejects.toThrow('stop');
    expect(lw.listRequests).toHaveLength(0);
  });
});
