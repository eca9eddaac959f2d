import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatColumns, formatTabbed } from '../../src/render/columns.js';
import { KUBECTL } from '../kubectl-lookup.js';

const GO_DEFAULTS = { minWidth: 0, padding: 1, rememberWidths: false };

describe('formatColumns', () => {
  it('pads each column to its widest cell plus 3 and leaves the last cell unpadded', () => {
    const out = formatColumns(['NAME', 'READY', 'STATUS'], [
      ['nginx-1', '1/1', 'Running'],
      ['a', '0/1', 'Pending'],
    ]);
    expect(out).toBe('NAME      READY   STATUS\n' + 'nginx-1   1/1     Running\n' + 'a         0/1     Pending\n');
  });

  it('uses kubectl minwidth 6 for narrow columns', () => {
    expect(formatColumns(['A', 'B'], [['x', 'y']])).toBe('A     B\nx     y\n');
  });

  it('keeps the padding before an empty last cell, as kubectl api-resources -o wide does', () => {
    expect(formatColumns(['NAME', 'CATEGORIES'], [['pods', 'all'], ['bindings', '']])).toBe(
      'NAME       CATEGORIES\npods       all\nbindings   \n',
    );
  });

  it('counts code points, not UTF-16 units, like Go counts runes', () => {
    // width max(6, 3 + 3): the emoji is one rune though two UTF-16 units
    expect(formatColumns(null, [['é😀', 'x'], ['abc', 'y']])).toBe('é😀    x\nabc   y\n');
  });

  it('returns an empty string for no lines', () => {
    expect(formatColumns(null, [])).toBe('');
  });
});

describe('formatTabbed (text/tabwriter semantics)', () => {
  it('treats a column as contiguous lines with a tab-terminated cell there (Go elastic example)', () => {
    const text = 'a\tb\tc\naa\tbb\tcc\naaa\t\naaaa\tdddd\teeee\n';
    // Hand-computed: column 0 spans all four lines (width 4+1); column 1 is two blocks (2+1, then 4+1).
    expect(formatTabbed(text, GO_DEFAULTS)).toBe('a    b  c\naa   bb cc\naaa  \naaaa dddd eeee\n');
  });

  it('does not align a trailing cell that has no terminating tab', () => {
    const text = 'a\tb\taligned\t\naa\tbb\taligned\t\naaa\tbbb\tunaligned\naaaa\tbbbb\taligned\t\n';
    expect(formatTabbed(text, { ...GO_DEFAULTS, padding: 3 })).toBe(
      'a      b      aligned   \n' + 'aa     bb     aligned   \n' + 'aaa    bbb    unaligned\n' + 'aaaa   bbbb   aligned   \n',
    );
  });

  it('remembers column widths across a line without tabs only with RememberWidths', () => {
    const text = 'aaaa\tb\nx\na\tb\n';
    expect(formatTabbed(text, GO_DEFAULTS)).toBe('aaaa b\nx\na b\n');
    expect(formatTabbed(text, { ...GO_DEFAULTS, rememberWidths: true })).toBe('aaaa b\nx\na    b\n');
  });

  it('writes an unterminated last line without a newline', () => {
    expect(formatTabbed('ab\tc\nd\te', GO_DEFAULTS)).toBe('ab c\nd  e');
  });
});

// Real kubectl is the judge: it prints api-resources from a minimal discovery server, and
// formatColumns over the same data must give the same bytes.
const run = promisify(execFile);

interface Res {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}
const GROUPS: { gv: string; group: string; resources: Res[] }[] = [
  {
    gv: 'v1',
    group: '',
    resources: [
      { name: 'pods', kind: 'Pod', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['po'], categories: ['all'] },
      { name: 'pods/log', kind: 'Pod', namespaced: true, verbs: ['get'] },
      { name: 'bindings', kind: 'Binding', namespaced: true, verbs: ['create'] },
      { name: 'namespaces', kind: 'Namespace', namespaced: false, verbs: ['get', 'list', 'watch'], shortNames: ['ns'] },
      { name: 'componentstatuses', kind: 'ComponentStatus', namespaced: false, verbs: ['get', 'list'], shortNames: ['cs'] },
    ],
  },
  {
    gv: 'apps/v1',
    group: 'apps',
    resources: [
      { name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['get', 'list', 'watch'], shortNames: ['deploy'], categories: ['all'] },
      { name: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true, verbs: ['get', 'list'] },
    ],
  },
  {
    gv: 'stable.example.com/v1',
    group: 'stable.example.com',
    resources: [{ name: 'crontabs', kind: 'CronTab', namespaced: true, verbs: ['get', 'list', 'watch'], shortNames: ['ct', 'cts'] }],
  },
];

describe('formatColumns against real kubectl api-resources', () => {
  let server: Server;
  let url = '';

  beforeAll(async () => {
    const routes: Record<string, unknown> = {
      '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] },
      '/apis': {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: GROUPS.filter((g) => g.group).map((g) => {
          const v = { groupVersion: g.gv, version: g.gv.split('/')[1] };
          return { name: g.group, versions: [v], preferredVersion: v };
        }),
      },
    };
    for (const g of GROUPS) {
      routes[g.group ? `/apis/${g.gv}` : `/api/${g.gv}`] = {
        kind: 'APIResourceList',
        groupVersion: g.gv,
        resources: g.resources.map((r) => ({ ...r, singularName: '' })),
      };
    }
    server = createServer((req, res) => {
      const body = routes[(req.url ?? '').split('?')[0]];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // kubectl's default order: by API group, then by name; subresources are left out.
  const rows = (wide: boolean) =>
    GROUPS.flatMap((g) =>
      g.resources
        .filter((r) => !r.name.includes('/'))
        .map((r) => ({ g, r }))
        .sort((a, b) => (a.r.name < b.r.name ? -1 : 1)),
    )
      .sort((a, b) => (a.g.group < b.g.group ? -1 : a.g.group > b.g.group ? 1 : 0))
      .map(({ g, r }) => {
        const row = [r.name, (r.shortNames ?? []).join(','), g.gv, String(r.namespaced), r.kind];
        return wide ? [...row, r.verbs.join(','), (r.categories ?? []).join(',')] : row;
      });
  const HEADERS = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'];

  it('reproduces kubectl api-resources byte for byte', async () => {
    const { stdout } = await run(KUBECTL, ['--server', url, 'api-resources'], { env: process.env });
    expect(formatColumns(HEADERS, rows(false))).toBe(stdout);
  });

  it('reproduces kubectl api-resources -o wide byte for byte, trailing spaces included', async () => {
    const { stdout } = await run(KUBECTL, ['--server', url, 'api-resources', '-o', 'wide'], { env: process.env });
    expect(formatColumns([...HEADERS, 'VERBS', 'CATEGORIES'], rows(true))).toBe(stdout);
  });
});
