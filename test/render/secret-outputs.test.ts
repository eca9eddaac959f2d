// Secret values never reach any output unless --show-secrets: Secrets with neutral key names (so only
// the Secret rule, not the credential-name rule, can mask them) through every trace printer output,
// the object printers, the diff, and the index values computed from them.
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { indexersFromSpecs, indexRows, indicesOf } from '../../src/informer/index-report.js';
import { indexChangeRecord } from '../../src/informer/index-changes.js';
import { Indexer } from '../../src/informer/indexer.js';
import { Tracer, type TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import { formatColumns } from '../../src/render/columns.js';
import { indexTable } from '../../src/render/index-table.js';
import { kubectlJSON, kubectlYAML, listOf, printObjects } from '../../src/render/objects.js';
import { maskSecretChanges, maskSecrets } from '../../src/render/secrets.js';
import { createTracePrinter, type TraceOutput } from '../../src/render/trace-printer.js';
import { LAST_APPLIED, leaksIn, newSecret, oldSecret, PLAIN } from './secret-fixtures.js';

const T = Date.UTC(2026, 10, 26, 8, 0, 0);

/** What `kwatch events secrets --diff` traces for one update: the watch event and the handler's old/new. */
function updateRecords(old: KubeObject = oldSecret() as KubeObject): TraceRecord[] {
  const now = newSecret() as KubeObject;
  return [
    { time: T, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: 'default/app', rv: '11', object: now },
    { time: T, stage: 'handler', op: 'OnUpdate', key: 'default/app', rv: '11', old, new: now },
  ];
}

function print(output: TraceOutput, records: TraceRecord[], opts: { diff?: 'changed' | 'all'; includeObjects?: boolean; showSecrets?: boolean } = {}): string {
  let out = '';
  const p = createTracePrinter({ output, stream: { write: (s: string) => (out += s) }, stages: 'all', ...opts });
  for (const r of records) p.write(r);
  p.end();
  return out;
}

const OUTPUTS: TraceOutput[] = ['table', 'wide', 'json', 'ndjson', 'yaml', 'name'];

describe('Secret values with neutral key names in trace output', () => {
  for (const output of OUTPUTS) {
    for (const diff of ['changed', 'all'] as const) {
      it(`-o ${output} --diff (${diff}) with objects shows no data, stringData or last-applied value`, () => {
        const text = print(output, updateRecords(), { diff, includeObjects: true });
        expect(leaksIn(text)).toEqual([]);
        if (output !== 'name') expect(text).toContain('<masked');
      });
    }
  }

  it('still masks when the old object came from a typed list and carries no kind', () => {
    const { kind: _none, ...old } = oldSecret();
    for (const output of ['table', 'ndjson'] as const) expect(leaksIn(print(output, updateRecords(old as KubeObject), { diff: 'all', includeObjects: true }))).toEqual([]);
  });

  it('lists every changed key, with sizes instead of values', () => {
    const text = print('table', updateRecords(), { diff: 'changed' });
    expect(text).toMatch(new RegExp(`data\\.db-url: <masked ${PLAIN.dbUrl.length} bytes #[0-9a-f]{8}> → <masked ${PLAIN.dbUrlNew.length} bytes #[0-9a-f]{8}>`));
    expect(text).toMatch(new RegExp(`data\\["config\\.yaml"\\]: <none> → <masked ${PLAIN.config.length} bytes #[0-9a-f]{8}>`));
    // stringData and the annotations map were added whole: keys kept, values masked.
    expect(text).toMatch(/stringData: <none> → \{"db-url":"<masked \d+ bytes>","settings.ini":"<masked \d+ bytes>"\}/);
    expect(text).toContain('"team":"payments"');
  });

  it('--show-secrets prints the values (the test would see a leak)', () => {
    for (const output of OUTPUTS.filter((o) => o !== 'name')) {
      expect(leaksIn(print(output, updateRecords(), { diff: 'all', includeObjects: true, showSecrets: true })).length).toBeGreaterThan(0);
    }
  });
});

describe('maskSecrets and maskSecretChanges with neutral key names', () => {
  it('masks every data and stringData value of a Secret whatever its key, and its last-applied annotation', () => {
    const m = maskSecrets(newSecret());
    expect(m.data).toEqual({ 'db-url': `<masked ${PLAIN.dbUrlNew.length} bytes>`, 'config.yaml': `<masked ${PLAIN.config.length} bytes>` });
    expect(m.stringData).toEqual({ 'db-url': `<masked ${PLAIN.stringDbUrl.length} bytes>`, 'settings.ini': `<masked ${PLAIN.settings.length} bytes>` });
    expect(m.metadata.annotations![LAST_APPLIED]).toMatch(/^<masked \d+ bytes>$/);
    expect(m.metadata.annotations!.team).toBe('payments');
  });

  it('masks changes of whole data, stringData, annotations and metadata maps', () => {
    const s = newSecret();
    const changes = maskSecretChanges(s, [
      { path: 'data', old: undefined, new: s.data },
      { path: 'stringData', old: undefined, new: s.stringData },
      { path: 'metadata.annotations', old: undefined, new: s.metadata.annotations },
      { path: 'metadata', old: oldSecret().metadata, new: s.metadata },
      { path: 'stringData["settings.ini"]', old: 'a', new: PLAIN.settings },
    ]);
    expect(leaksIn(JSON.stringify(changes))).toEqual([]);
    expect(changes[0].new).toEqual({ 'db-url': `<masked ${PLAIN.dbUrlNew.length} bytes>`, 'config.yaml': `<masked ${PLAIN.config.length} bytes>` });
  });

  it('masks credentials nested in a whole subtree added to any object', () => {
    const changes = maskSecretChanges({ kind: 'Widget' }, [{ path: 'spec.auth', old: undefined, new: { token: 'ocelot-lantern', user: 'bob' } }]);
    expect(changes[0].new).toEqual({ token: '<masked 14 bytes>', user: 'bob' });
  });
});

describe('Secret objects printed as list -o json|yaml print them', () => {
  const objects = () => maskSecrets([newSecret(), { ...oldSecret(), kind: 'Secret' }] as KubeObject[]);
  for (const output of ['json', 'yaml', 'ndjson', 'table', 'name'] as const) {
    it(`-o ${output}`, () => {
      let out = '';
      printObjects(objects(), { output, stream: { write: (s: string) => (out += s) } });
      expect(leaksIn(out)).toEqual([]);
    });
  }

  it('reveals with { reveal: true }', () => {
    expect(leaksIn(kubectlJSON(listOf(maskSecrets([newSecret()] as KubeObject[], { reveal: true }))))).not.toEqual([]);
  });
});

describe('index values computed from Secrets (kwatch index --by)', () => {
  const SPECS = ['{.data}', `annotation:${LAST_APPLIED}`, '{.data.*}', '{.stringData.db-url}', '{.metadata.annotations}', 'jsonpath={..db-url}'];
  const masked = (reveal: boolean) => indexersFromSpecs(SPECS, { view: reveal ? undefined : (o) => maskSecrets(o) });

  function indexerWith(reveal: boolean, tracer?: Tracer): Indexer {
    const ix = new Indexer({ indexers: masked(reveal), noNamespaceIndex: true, tracer });
    ix.add(oldSecret() as KubeObject);
    return ix;
  }

  it('the table and the Indices (-o json|yaml) show masked values only', () => {
    const ix = indexerWith(false);
    ix.update(newSecret() as KubeObject);
    const rows = SPECS.flatMap((s) => indexRows(ix, s));
    const t = indexTable(rows, { showKeys: true, several: true });
    const table = formatColumns(t.headers, t.cells);
    const json = JSON.stringify(indicesOf(ix, SPECS), null, 2);
    expect(leaksIn(table + json + kubectlYAML(indicesOf(ix, SPECS)))).toEqual([]);
    expect(indicesOf(ix, ['{.data.*}'])['{.data.*}']).toEqual({ [`<masked ${PLAIN.dbUrlNew.length} bytes>`]: ['default/app'], [`<masked ${PLAIN.config.length} bytes>`]: ['default/app'] });
    expect(Object.keys(indicesOf(ix, [`annotation:${LAST_APPLIED}`])[`annotation:${LAST_APPLIED}`])[0]).toMatch(/^<masked \d+ bytes>$/);
  });

  it('--watch -o ndjson old and new index values are masked', () => {
    const tracer = new Tracer();
    const ix = indexerWith(false, tracer);
    let out = '';
    const printer = createTracePrinter({ output: 'ndjson', stream: { write: (s: string) => (out += s) }, stages: new Set(['indexer']) });
    tracer.subscribe((r) => {
      const shaped = indexChangeRecord(r, new Set(SPECS));
      if (shaped) printer.write(shaped);
    });
    ix.update(newSecret() as KubeObject);
    ix.delete(newSecret() as KubeObject);
    printer.end();
    const records = out.trim().split('\n').map((l) => JSON.parse(l) as { op: string; indices: Record<string, { old: string[]; new: string[] }> });
    expect(records.map((r) => r.op)).toEqual(['update', 'delete']);
    expect(records[0].indices['{.data.*}'].new).toContain(`<masked ${PLAIN.config.length} bytes>`);
    expect(leaksIn(out)).toEqual([]);
  });

  it('--show-secrets indexes the values themselves', () => {
    const ix = indexerWith(true);
    ix.update(newSecret() as KubeObject);
    expect(leaksIn(JSON.stringify(indicesOf(ix, SPECS))).length).toBeGreaterThan(0);
  });
});

describe('yaml output of masked records stays parseable', () => {
  it('round-trips', () => {
    const docs = parseAllDocuments(print('yaml', updateRecords(), { diff: 'all', includeObjects: true })).map((d) => d.toJS() as Record<string, unknown>);
    expect(docs).toHaveLength(2);
    expect(parseYaml(kubectlYAML(maskSecrets(newSecret())))).toMatchObject({ data: { 'db-url': expect.stringMatching(/^<masked/) } });
  });
});
