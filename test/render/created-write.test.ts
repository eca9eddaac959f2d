import { describe, expect, it } from 'vitest';
import type { TraceRecord } from '../../src/informer/trace.js';
import { RECONCILE_DEFAULT_STAGES } from '../../src/render/stage-filter.js';
import { createTracePrinter } from '../../src/render/trace-printer.js';

function table(records: TraceRecord[]): string {
  let out = '';
  const p = createTracePrinter({ output: 'table', defaultStages: RECONCILE_DEFAULT_STAGES, stream: { write: (s: string) => (out += s) } });
  for (const r of records) p.write(r);
  p.end();
  return out;
}

const created = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: 'demo', name: 'creds-copy', labels: { app: 'web', copy: 'yes' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'creds', uid: 'u1', controller: true }] },
  type: 'Opaque',
  data: { password: 'aHVudGVyMg==', user: 'YWRtaW4=' },
};

describe('a create in table mode', () => {
  it('shows the created object\'s kind, name, labels, owner and the fields it sets, never their values', () => {
    const text = table([{ time: 0, stage: 'reconcile', op: 'write', key: 'demo/creds', controller: 'keeper', verb: 'create', resource: 'secrets', target: 'demo/creds-copy', mode: 'intercept', changed: ['(created)'], new: created, request: { verb: 'create', body: created } }]);
    const under = text.split('\n').slice(2).join('\n');
    expect(under).toBe(['    + Secret demo/creds-copy', '      labels: app=web,copy=yes', '      owner: Secret creds (controller)', '      sets: type, data.password, data.user', ''].join('\n'));
    expect(text).not.toContain('aHVudGVyMg');
  });
});
