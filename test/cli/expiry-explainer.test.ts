import { describe, expect, it } from 'vitest';
import { ExpiryExplainer } from '../../src/cli/expiry-explainer.js';
import type { TraceRecord } from '../../src/informer/trace.js';

const at = (op: string, rest: Record<string, unknown> = {}): TraceRecord => ({ time: 0, stage: 'reflector', op, name: 'pods', ...rest });

describe('ExpiryExplainer (kwatch events)', () => {
  it("explains a watch's 410 as replay --from-rv does, and links it to a quiet watch that got no bookmark", () => {
    const e = new ExpiryExplainer();
    const lines = [
      at('watch-start', { conn: 1, rv: '100' }),
      at('watch-close', { conn: 1, reason: 'eof', events: 0, ms: 300_000 }),
      at('watch-start', { conn: 2, rv: '100' }),
      at('watch-close', { conn: 2, reason: 'error', events: 0, ms: 5 }),
      at('expired', { conn: 2, rv: '100', during: 'watch', error: 'too old resource version: 100 (250)' }),
    ].map((r) => e.explain(r));
    expect(lines.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    const why = lines[4]!;
    expect(why).toContain('kwatch: pods: resourceVersion 100 is too old: the server no longer has the changes after it; the oldest it can still resume from is 250');
    expect(why).toContain('etcd compacts old revisions');
    expect(why).toContain('lists the current state again (a relist');
    expect(why).toContain('tombstones (DeletedFinalStateUnknown)');
    expect(why).toContain('The watch before it (conn 1) closed after 300.0s with events=0: nothing moved its resourceVersion 100');
    expect(why).toContain('asked for bookmarks (allowWatchBookmarks=true), but the server sent none');
  });

  it('says nothing of bookmarks when the watch before had events', () => {
    const e = new ExpiryExplainer();
    e.explain(at('watch-start', { conn: 1, rv: '100' }));
    e.explain(at('watch-close', { conn: 1, reason: 'eof', events: 3, ms: 300_000 }));
    const why = e.explain(at('expired', { rv: '130', during: 'watch-start', error: 'too old resource version: 130 (250)' }))!;
    expect(why).toContain('resourceVersion 130 is too old');
    expect(why).not.toContain('bookmarks');
  });
});
