import { describe, expect, it } from 'vitest';
import { indexTable, IndexWatchRows, keysCell, totalsLine, checkReportText } from '../../src/render/index-table.js';

describe('index tables', () => {
  it('shows a few keys and how many more, or all of them with --show-keys', () => {
    expect(keysCell(['a', 'b'], false)).toBe('a,b');
    expect(keysCell(['a', 'b', 'c', 'd', 'e'], false)).toBe('a,b,c +2 more');
    expect(keysCell(['a', 'b', 'c', 'd', 'e'], true)).toBe('a,b,c,d,e');
  });

  it('adds an INDEX column only for several indices and shows "" visibly', () => {
    const rows = [{ index: 'label:tier', value: '', count: 1, keys: ['a/p'] }];
    expect(indexTable(rows, { showKeys: false, several: false })).toEqual({ headers: ['VALUE', 'COUNT', 'KEYS'], cells: [['""', '1', 'a/p']] });
    expect(indexTable(rows, { showKeys: false, several: true }).headers).toEqual(['INDEX', 'VALUE', 'COUNT', 'KEYS']);
  });

  it('sums an index up in one line', () => {
    expect(totalsLine({ index: 'nodeName', values: 4, keys: 30, objects: 30, none: 1, approxBytes: 1600 }, 0.25)).toBe('nodeName: 30 objects under 4 values (1 under <none>); index built in 0.3ms, ~1.6kB');
    expect(totalsLine({ index: 'img', values: 1, keys: 7, objects: 6, none: 0, approxBytes: 500 })).toBe('img: 6 objects, 7 keys under 1 value; index ~500B');
  });

  it('keeps values that emptied during --watch at count 0 and shows the change since the sync', () => {
    let counts = new Map([['n1', 2], ['n2', 1]]);
    const rows = new IndexWatchRows(() => counts, ['nodeName']);
    expect(rows.rows()).toEqual([['n1', '2', ''], ['n2', '1', '']]);
    counts = new Map([['n1', 1], ['n3', 2]]);
    expect(rows.rows()).toEqual([['n3', '2', '+2'], ['n1', '1', '-1'], ['n2', '0', '-1']]);
    expect(rows.headers).toEqual(['VALUE', 'COUNT', 'CHANGE']);
    expect(rows.rowKey(['n3', '2', '+2'])).toBe('n3');
  });

  it('reports a cache check: one line when in sync, a row per difference otherwise', () => {
    const base = { consistency: 'exact' as const, cacheResourceVersion: '9', listResourceVersion: '9', cached: 2, listed: 2, same: 1 };
    expect(checkReportText({ ...base, inSync: true, missing: [], extra: [], stale: [], same: 2 }, 'pods')).toEqual({
      summary: 'cache check pods: in sync — 2 cached, 2 listed; cache at resourceVersion 9, LIST at the same resourceVersion (Exact)',
    });
    const r = checkReportText({ ...base, inSync: false, missing: [{ key: 'a/m', rv: '5' }], extra: [{ key: 'a/x', rv: '3' }], stale: [] }, 'pods');
    expect(r.summary).toMatch(/^cache check pods: DIFFERS — 1 missing, 1 extra \(2 cached, 2 listed\)/);
    expect(r.table?.cells).toEqual([['missing', 'a/m', '<none>', '5'], ['extra', 'a/x', '3', '<none>']]);
  });
});
