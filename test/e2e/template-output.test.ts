// Conformance, end to end through the built CLI (run `npm run build` first): `-o jsonpath=…`,
// `custom-columns=…` and `go-template=…` (and their -file forms) print byte for byte what real kubectl
// prints for the same objects on the same embedded server — `kwatch list` and `kwatch index --value`
// against `kubectl get`, `kwatch events` (object by object) against `kubectl get NAME` per object.
import { describe, expect, it, beforeAll } from 'vitest';
import { kwatch } from './events-helpers.js';
import { kubectlSim, NAMESPACES, PODS } from '../sim/sim-helpers.js';

const fx = kubectlSim({}, 'kwatch-template-output-');
const env = () => ({ KUBECONFIG: fx.kubeconfig, KUBECACHEDIR: `${fx.dir}/cache` });
const NS = ['-n', 'team'];

beforeAll(() => {
  const api = fx.sim.api;
  api.create(NAMESPACES, { metadata: { name: 'team' } });
  const container = (name: string, image: string, port?: number) => ({ name, image, ...(port ? { ports: [{ containerPort: port, protocol: 'TCP' }] } : {}) });
  api.create(PODS, {
    metadata: { name: 'api', namespace: 'team', labels: { app: 'api', tier: 'backend' }, annotations: { note: 'a<b>&c "quoted"', 'example.com/owner': 'team-a' } },
    spec: { nodeName: 'n1', activeDeadlineSeconds: 1234567, containers: [container('app', 'nginx:1.27', 8080), container('sidecar', 'envoy:1.30')] },
    status: { phase: 'Running', podIP: '10.0.0.7', containerStatuses: [{ name: 'app', ready: true, restartCount: 3, image: 'nginx:1.27', imageID: '', state: { running: {} } }, { name: 'sidecar', ready: false, restartCount: 0, image: 'envoy:1.30', imageID: '', state: {} }] },
  });
  api.create(PODS, {
    metadata: { name: 'batch', namespace: 'team', labels: { app: 'batch' } },
    spec: { nodeName: 'n2', containers: [container('job', 'busybox:1.36')] },
    status: { phase: 'Succeeded' },
  });
  api.create(PODS, { metadata: { name: 'web', namespace: 'team' }, spec: { containers: [container('web', 'nginx:1.27', 80)] }, status: { phase: 'Pending' } });
  api.create({ group: '', version: 'v1', resource: 'secrets' }, { metadata: { name: 'creds', namespace: 'team' }, type: 'Opaque', data: { password: 'czNjcjN0' } });
});

const JSONPATHS = [
  '{.items[*].metadata.name}',
  '{range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}',
  '{.items[0].metadata.labels}',
  '{.items[0].metadata.annotations}',
  '{.items[*].spec.containers[*].image}',
  '{range .items[?(@.status.phase=="Running")]}{.metadata.name}{"\\n"}{end}',
  '{.items[*].status.containerStatuses[*].restartCount}',
  '{.kind} {.apiVersion} {.metadata}',
  'names: {.items[*].metadata.name}!',
  '{.items[*].metadata.labels.app}',
  '{range .items[*]}{.metadata.name}:{range .spec.containers[*]}{.name}={.image},{end}{"\\n"}{end}',
  '{.items[*].spec.containers}',
  '{.items[0].spec.containers[0].ports[0].containerPort}',
  '{..image}',
  '{.items[0].spec.activeDeadlineSeconds} {.items[0].status.containerStatuses[0].ready}',
  "{.items[0].metadata.annotations['example\\.com/owner']}",
  '{.items[-1:].metadata.name}',
  '{range .items[*]}[{.metadata.labels.tier}]{end}',
];

const CUSTOM_COLUMNS = [
  'NAME:.metadata.name,NODE:.spec.nodeName,APP:.metadata.labels.app',
  'NAME:metadata.name,IMAGES:.spec.containers[*].image,LABELS:.metadata.labels',
  'N:{.metadata.name},RESTARTS:.status.containerStatuses[*].restartCount,C:.spec.containers,DEADLINE:.spec.activeDeadlineSeconds',
  'NOTE:.metadata.annotations.note',
];

const GO_TEMPLATES = [
  '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}',
  '{{range .items}}{{.metadata.name}}{{with .metadata.labels}} {{index . "app"}} {{index . "tier"}}{{end}}{{"\\n"}}{{end}}',
  '{{range .items}}{{printf "%d %v %s %5.1f|%x" .spec.activeDeadlineSeconds .spec.activeDeadlineSeconds .status.phase 3.14159 "ab"}}{{"\\n"}}{{end}}',
  '{{len .items}}',
  '{{range .items}}{{if eq .status.phase "Running"}}{{.metadata.name}} up{{else if eq .status.phase "Pending"}}{{.metadata.name}} waiting{{else}}{{.metadata.name}} {{.status.phase}}{{end}}{{"\\n"}}{{end}}',
  '{{range .items}}{{printf "%s/%s\\n" .metadata.namespace .metadata.name}}{{end}}',
  '{{range .items -}}\n  {{ .metadata.name }}\n{{ end -}}\n',
  '{{range .items}}{{.metadata.name | printf "%q"}} {{.spec.containers}}{{"\\n"}}{{end}}',
  '{{(index .items 0).metadata.labels}} {{(index .items 0).metadata.annotations}}',
  '{{range .items}}{{range $k, $v := .metadata.labels}}{{$k}}={{$v}};{{end}}{{"\\n"}}{{end}}',
  '{{range .items}}{{.spec.activeDeadlineSeconds}} {{range .status.containerStatuses}}{{.restartCount}},{{end}}{{"\\n"}}{{end}}',
  '{{.missing}} {{.metadata.missing.deeper}} {{index .items 0 | len}}',
  '{{with .items}}{{len .}}{{end}}{{with .nothing}}x{{else}}none{{end}}',
  '{{range $i, $p := .items}}{{$i}}:{{$p.metadata.name}}{{if $p.spec.nodeName}} on {{$p.spec.nodeName}}{{end}}{{"\\n"}}{{end}}',
  '{{range .items}}{{if and .metadata.labels (not .spec.nodeName)}}x{{else}}{{or .spec.nodeName "none"}}{{end}} {{end}}',
  '{{/* a comment */}}{{range .items}}{{printf "%-8s|%5v|" .metadata.name .status.phase}}{{len .spec.containers}}{{println}}{{end}}',
  '{{range .items}}{{.metadata.name}} {{exists . "spec" "nodeName"}}{{"\\n"}}{{end}}',
];

async function both(kwatchArgs: string[], kubectlArgs: string[]): Promise<{ ours: string; theirs: string }> {
  const [ours, theirs] = await Promise.all([kwatch(kwatchArgs, env()), fx.kubectl(...kubectlArgs)]);
  expect(theirs.stderr).toBe('');
  expect(theirs.code).toBe(0);
  expect(ours.stderr).toBe('');
  expect(ours.code).toBe(0);
  return { ours: ours.stdout, theirs: theirs.stdout };
}

/**
 * Separates templates run as one: a jsonpath or go-template made of several, one after the other, prints their
 * outputs one after the other (each template closes its own blocks), so one kwatch and one kubectl process compare
 * them all — instead of two processes per template — and the outputs are split back to compare template by template.
 * The joined template is read from a file (`-o jsonpath-file=`, `-o go-template-file=`): these runs are also the
 * check that the -file forms read it (the inline forms have runs of their own below).
 */
const SEP = '<<kwatch-template-sep>>';

async function eachTemplate(format: 'jsonpath' | 'go-template', templates: string[]): Promise<void> {
  const joined = templates.join(SEP);
  const file = fx.file(`joined.${format}`, joined);
  const { ours, theirs } = await both(['list', 'pods', ...NS, '-o', `${format}-file=${file}`], ['get', 'pods', ...NS, '-o', `${format}-file=${file}`]);
  const [mine, kubectls] = [ours.split(SEP), theirs.split(SEP)];
  expect(kubectls).toHaveLength(templates.length);
  templates.forEach((t, i) => expect(listVersionAsKubectl(t, mine[i]), `${format}=${t}`).toBe(kubectls[i]));
}

/**
 * kubectl prints the List's resourceVersion as "" (its printer merges pages); kwatch's list knows the version it read
 * at and prints it, so that `-o jsonpath='{.metadata.resourceVersion}'` feeds `replay --from-rv`. The one difference.
 */
function listVersionAsKubectl(template: string, out: string): string {
  if (!template.includes('{.metadata}')) return out;
  expect(out).toMatch(/"resourceVersion":"\d+"/);
  return out.replace(/"resourceVersion":"\d+"/, '"resourceVersion":""');
}

// Every test here only reads the four objects beforeAll made; they run one at a time: running them at once cut no CPU, which bounds the suite's wall on 2 cores, and under load put
// more processes at once than their bounds allow (docs/benchmarks.md, "The test suite").
describe('kwatch list -o jsonpath|custom-columns|go-template prints what kubectl get prints', { timeout: 60_000 }, () => {
  it(`${JSONPATHS.length} jsonpath templates, each as kubectl prints it (read from a file: -o jsonpath-file)`, () => eachTemplate('jsonpath', JSONPATHS));

  it(`${GO_TEMPLATES.length} go-templates, each as kubectl prints it (read from a file: -o go-template-file)`, () => eachTemplate('go-template', GO_TEMPLATES));

  it.each(CUSTOM_COLUMNS)('custom-columns=%s', async (t) => {
    const { ours, theirs } = await both(['list', 'pods', ...NS, '-o', `custom-columns=${t}`], ['get', 'pods', ...NS, '-o', `custom-columns=${t}`]);
    expect(ours).toBe(theirs);
  });

  // jsonpath-file and go-template-file: the joined templates above are read from files.
  it('custom-columns-file reads the columns from a file', async () => {
    const cc = fx.file('t.columns', 'NAME        NODE\n.metadata.name   {.spec.nodeName}\n');
    const { ours, theirs } = await both(['list', 'pods', ...NS, '-o', `custom-columns-file=${cc}`], ['get', 'pods', ...NS, '-o', `custom-columns-file=${cc}`]);
    expect(ours).toBe(theirs);
  }, 60_000);
});

describe('kwatch index --value and kwatch events with templates', { timeout: 60_000 }, () => {
  it('index --value: the objects under the value, as kubectl get prints the same objects', async () => {
    const t = '{range .items[*]}{.kind}/{.metadata.name} {.spec.nodeName}{"\\n"}{end}';
    const { ours, theirs } = await both(['index', 'pods', ...NS, '--by', 'nodeName', '--value', 'n1', '-o', `jsonpath=${t}`], ['get', 'pods', ...NS, '--field-selector', 'spec.nodeName=n1', '-o', `jsonpath=${t}`]);
    expect(ours).toBe(theirs);
    expect(ours).toBe('Pod/api n1\n');
  });

  it('index without --value: the template reads the Indices (what -o json prints)', async () => {
    const res = await kwatch(['index', 'pods', ...NS, '--by', 'nodeName', '-o', 'jsonpath={.nodeName.n2}'], env());
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe('["team/batch"]');
  });

  it('events: each object as it arrives, as kubectl get NAME prints it', async () => {
    const names = ['api', 'batch', 'web'];
    await Promise.all(['{.metadata.name} {.status.phase}{"\\n"}', '{{.metadata.name}} {{len .spec.containers}} {{.metadata.labels}}{{"\\n"}}'].map(async (t) => {
      const format = t.startsWith('{{') ? 'go-template' : 'jsonpath';
      const [ours, theirs] = await Promise.all([
        kwatch(['events', 'pods', ...NS, '--until-synced', '-o', `${format}=${t}`], env()),
        Promise.all(names.map((n) => fx.kubectl('get', 'pod', n, ...NS, '-o', `${format}=${t}`))),
      ]);
      expect(ours.code).toBe(0);
      expect(ours.stdout).toBe(theirs.map((r) => r.stdout).join(''));
    }));
  }, 60_000);

  it('events -o custom-columns: the header once, then a row per object', async () => {
    const res = await kwatch(['events', 'pods', ...NS, '--until-synced', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase'], env());
    expect(res.code).toBe(0);
    // The initial list as one aligned block, as `kubectl get --watch` prints it.
    const theirs = await fx.kubectl('get', 'pods', ...NS, '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase');
    expect(res.stdout).toBe(theirs.stdout);
    expect(res.stdout).toBe('NAME    PHASE\napi     Running\nbatch   Succeeded\nweb     Pending\n');
  });
});

describe('template outputs keep Secret data masked', { timeout: 60_000 }, () => {
  it('unless --show-secrets, which prints what kubectl prints', async () => {
    const t = '{.items[*].data.password}';
    const [masked, gt, pair] = await Promise.all([
      kwatch(['list', 'secrets', ...NS, '-o', `jsonpath=${t}`], env()),
      kwatch(['events', 'secrets', ...NS, '--until-synced', '-o', 'go-template={{.data.password}}'], env()),
      both(['list', 'secrets', ...NS, '--show-secrets', '-o', `jsonpath=${t}`], ['get', 'secrets', ...NS, '-o', `jsonpath=${t}`]),
    ]);
    expect(masked.stdout).toBe('<masked 6 bytes>');
    expect(gt.stdout).toBe('<masked 6 bytes>');
    expect(pair.ours).toBe(pair.theirs);
    expect(pair.ours).toBe('czNjcjN0');
  }, 60_000);
});

// One template that cannot be read and one that fails while printing, through the CLI: each is one line, exit 1,
// nothing on stdout. Every other bad template takes the same path to the user and differs only in its message; those
// messages are checked in process (test/cli/output-template.test.ts), without a CLI run each.
describe('bad templates: one line, exit 1', { timeout: 60_000 }, () => {
  it.each([
    ['jsonpath={.items[*].metadata.name', /^error: error parsing jsonpath .*unclosed action/],
    ['go-template={{range .kind}}{{end}}', /^error: error executing go-template .*range can't iterate over List/],
  ])('-o %s', async (output, message) => {
    const res = await kwatch(['list', 'pods', ...NS, '-o', output], env());
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
  });
});
