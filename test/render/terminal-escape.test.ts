// Text from a server never drives the terminal: control characters are escaped in every human-readable
// output (table, wide, name, diff, index table, live view, error lines) and kept exact in json/ndjson/yaml.
import { describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { describeError } from '../../src/cli/error-message.js';
import { printWarning } from '../../src/cli/warning.js';
import { ConnectionError, StatusError } from '../../src/informer/errors.js';
import { indexersFromSpecs, indexRows } from '../../src/informer/index-report.js';
import { Indexer } from '../../src/informer/indexer.js';
import type { TraceRecord } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import { formatColumns } from '../../src/render/columns.js';
import { indexTable, IndexWatchRows } from '../../src/render/index-table.js';
import { plainPeriodic } from '../../src/render/live-table.js';
import { printObjects } from '../../src/render/objects.js';
import { escapeForTerminal } from '../../src/render/terminal-escape.js';
import { createTracePrinter, type TraceOutput } from '../../src/render/trace-printer.js';

/** Sets the window title, rings the bell, erases the line and overwrites it from its start. */
const EVIL = '\x1b]0;pwned\x07\x1b[2K\rall good';
const ESCAPED_EVIL = '\\x1b]0;pwned\\x07\\x1b[2K\\rall good';
/** Any raw control character but newline (which ends lines in every output). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('escapeForTerminal', () => {
  it('writes C0 controls as \\xNN, CR/LF/TAB by name, C1 controls as \\u00NN', () => {
    expect(escapeForTerminal(EVIL)).toBe('\\x1b]0;pwned\\x07\\x1b[2K\\rall good');
    expect(escapeForTerminal('a\tb\nc\x00\x7f\u009b2J')).toBe('a\\tb\\nc\\x00\\x7f\\u009b2J');
  });

  it('keeps newlines and tabs of multi-line text, and plain text as it is', () => {
    expect(escapeForTerminal('line 1\n\tline 2\r\x1b[31m', { multiline: true })).toBe('line 1\n\tline 2\\r\\x1b[31m');
    const plain = 'ünïcødé, "quotes", back\\slash → ok';
    expect(escapeForTerminal(plain)).toBe(plain);
  });

  it('is idempotent: escaped text has nothing left to escape', () => {
    expect(escapeForTerminal(escapeForTerminal(EVIL))).toBe(escapeForTerminal(EVIL));
  });
});

const T = Date.UTC(2026, 10, 26, 8, 0, 0);
const cm = (rv: string, note: string, key = 'default/app'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name: key.split('/')[1], resourceVersion: rv, annotations: { note } },
  data: { 'motd.txt': note },
});

/** An update of a ConfigMap whose annotation and value become EVIL, and a watch ERROR quoting it. */
function records(): TraceRecord[] {
  const old = cm('1', 'hello');
  const now = cm('2', EVIL);
  return [
    { time: T, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key: `default/${EVIL}`, rv: '2', object: now },
    { time: T, stage: 'handler', op: 'OnUpdate', key: 'default/app', rv: '2', old, new: now },
    { time: T, stage: 'reflector', op: 'watch-error', error: new Error(`Status: ${EVIL}`), note: EVIL },
  ];
}

function print(output: TraceOutput, includeObjects = false): string {
  let out = '';
  const p = createTracePrinter({ output, stream: { write: (s: string) => (out += s) }, stages: 'all', diff: 'all', includeObjects });
  for (const r of records()) p.write(r);
  p.end();
  return out;
}

describe('trace output', () => {
  for (const output of ['table', 'wide', 'name'] as const) {
    it(`-o ${output} (--diff) escapes control characters in keys, details and diff lines`, () => {
      const text = print(output);
      expect(text).not.toMatch(RAW_CONTROL);
      expect(text).toContain('\\x1b]0;pwned\\x07\\x1b[2K\\rall good');
    });
  }

  it('the diff line shows the escaped annotation and value', () => {
    const text = print('table');
    expect(text).toContain('metadata.annotations.note: hello → \\x1b]0;pwned\\x07\\x1b[2K\\rall good');
    expect(text).toContain('data["motd.txt"]: hello → \\x1b]0;pwned');
  });

  for (const output of ['json', 'ndjson'] as const) {
    it(`-o ${output} keeps the text exact (JSON encodes ESC as \\u001b)`, () => {
      const text = print(output, true);
      expect(text).not.toMatch(RAW_CONTROL);
      const parsed = output === 'json' ? (JSON.parse(text) as Record<string, unknown>[]) : text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(parsed[0].key).toBe(`default/${EVIL}`);
      expect((parsed[1].diff as { path: string; new: unknown }[]).find((d) => d.path === 'metadata.annotations.note')?.new).toBe(EVIL);
      expect(parsed[2].note).toBe(EVIL);
    });
  }

  it('-o yaml round-trips the exact text', () => {
    const docs = parseAllDocuments(print('yaml', true)).map((d) => d.toJS() as Record<string, unknown>);
    expect(docs[0].key).toBe(`default/${EVIL}`);
    expect((docs[1].new as KubeObject).metadata!.annotations!.note).toBe(EVIL);
    expect(docs[2].error).toBe(`Status: ${EVIL}`);
  });
});

describe('tables', () => {
  it('a cell stays one cell: tabs, newlines and escapes are escaped before alignment', () => {
    const out = formatColumns(['NAME', 'VALUE'], [[EVIL, 'a\tb\nc'], ['x', 'y']]);
    expect(out).not.toMatch(RAW_CONTROL);
    const lines = out.split('\n');
    expect(lines).toHaveLength(4); // header, two rows, the final newline
    expect(lines[1].indexOf('a\\tb\\nc')).toBe(lines[2].indexOf('y'));
  });

  it('kwatch index VALUE column escapes values from annotations and ConfigMaps', () => {
    const ix = new Indexer({ indexers: indexersFromSpecs(['annotation:note', '{.data.motd\\.txt}']), noNamespaceIndex: true });
    ix.add(cm('2', EVIL));
    const rows = ['annotation:note', '{.data.motd\\.txt}'].flatMap((n) => indexRows(ix, n));
    expect(rows.map((r) => r.value)).toEqual([EVIL, EVIL]);
    const t = indexTable(rows, { showKeys: false, several: true });
    const out = formatColumns(t.headers, t.cells);
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).toContain('\\x1b]0;pwned\\x07');
  });

  it('the --watch live view (plain blocks) escapes the title, the rows and the changed: line', () => {
    vi.useFakeTimers();
    try {
      let counts = new Map([['calm', 1]]);
      const rows = new IndexWatchRows(() => counts, ['annotation:note']);
      let out = '';
      const stream = { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream;
      const view = plainPeriodic({ headers: rows.headers, getRows: () => rows.rows(), rowKey: rows.rowKey, stream, intervalMs: 1000, title: () => `by ${EVIL}`, now: () => T });
      counts = new Map([['calm', 1], [EVIL, 1]]);
      vi.advanceTimersByTime(1000);
      view.stop();
      expect(out).not.toMatch(RAW_CONTROL);
      expect(out).toContain('by \\x1b]0;pwned');
      expect(out).toContain('changed: \\x1b]0;pwned\\x07\\x1b[2K\\rall good');
    } finally {
      vi.useRealTimers();
    }
  });

  it('objects -o table and -o name escape names; -o json stays exact', () => {
    let table = '';
    let json = '';
    printObjects([cm('2', 'x', `default/${EVIL}`)], { output: 'table', stream: { write: (s: string) => (table += s) } });
    printObjects([cm('2', 'x', `default/${EVIL}`)], { output: 'name', stream: { write: (s: string) => (table += s) } });
    printObjects([cm('2', 'x', `default/${EVIL}`)], { output: 'json', stream: { write: (s: string) => (json += s) } });
    expect(table).not.toMatch(RAW_CONTROL);
    expect(table).toContain('configmap/\\x1b]0;pwned');
    expect((JSON.parse(json) as { items: KubeObject[] }).items[0].metadata!.name).toBe(EVIL);
  });
});

describe('error lines', () => {
  it('escape server text in a Status message and a connection error, keeping the line', () => {
    const status = new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `configmaps "${EVIL}" is forbidden`, reason: 'Forbidden', code: 403 } as never);
    const msg = describeError(status).message;
    expect(msg).not.toMatch(RAW_CONTROL);
    expect(msg).toBe('Error from server (Forbidden): configmaps "\\x1b]0;pwned\\x07\\x1b[2K\\rall good" is forbidden');
    expect(describeError(new ConnectionError(`reset by ${EVIL}`)).message).not.toMatch(RAW_CONTROL);
  });

  it('Warning: lines (discovery failures quote the server) are escaped', () => {
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      printWarning(`couldn't get resource list for x/v1: ${EVIL}`);
      expect(spy).toHaveBeenCalledWith(`Warning: couldn't get resource list for x/v1: ${ESCAPED_EVIL}\n`);
    } finally {
      spy.mockRestore();
    }
  });
});
