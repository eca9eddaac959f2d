import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openReplayView } from '../../src/cli/replay-view.js';

function collect() {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (c) => (text += String(c)));
  return { stdout, text: () => text };
}

describe('replay view with --key', () => {
  const run = () => {
    const out = collect();
    const view = openReplayView({ output: 'ndjson', key: 'default/web-0', stdout: out.stdout });
    const t = 1_700_000_000_000;
    view.tracer.emit({ time: t, stage: 'reflector', op: 'listed', rv: '10', items: 2 });
    view.tracer.emit({ time: t, stage: 'handler', op: 'OnAdd', key: 'default/web-0', rv: '9' });
    view.tracer.emit({ time: t, stage: 'handler', op: 'OnAdd', key: 'default/web-1', rv: '8' });
    view.tracer.emit({ time: t + 1, stage: 'reflector', op: 'fault', key: 'default/web-1', rv: '11', fault: 'hide-delete:default/web-1' });
    view.tracer.emit({ time: t + 1, stage: 'reflector', op: 'expired', rv: '10' });
    view.tracer.emit({ time: t + 2, stage: 'reflector', op: 'relist', reason: 'watch expired' });
    view.tracer.emit({ time: t + 3, stage: 'reflector', op: 'watch-start', rv: '12' });
    view.tracer.emit({ time: t + 3, stage: 'reflector', op: 'fault', key: 'default/web-0', rv: '13', fault: 'hide-delete:default/web-0' });
    view.tracer.emit({ time: t + 3, stage: 'handler', op: 'OnDelete', key: 'default/web-0', rv: '9', tombstone: true });
    view.close();
    return { view, lines: out.text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) };
  };

  it("counts the run's records in the summary, not only the followed key's", () => {
    const { view } = run();
    const s = view.summary.toJSON();
    expect(s.relists).toBe(1);
    expect(s.expired).toBe(1);
    expect(s.stages.handler).toEqual({ OnAdd: 2, OnDelete: 1 });
  });

  it("prints the reflector records that explain the key's tombstone beside its records", () => {
    const { lines } = run();
    expect(lines.map((r) => `${r.stage} ${r.op}${r.key ? ` ${r.key}` : ''}`)).toEqual([
      'reflector listed',
      'handler OnAdd default/web-0',
      'reflector expired',
      'reflector relist',
      'reflector fault default/web-0',
      'handler OnDelete default/web-0',
    ]);
  });
});
