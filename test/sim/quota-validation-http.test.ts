// A ResourceQuota kube-apiserver refuses is refused by the sim with kube's 422 and its field paths and messages
// (pkg/apis/core/validation/validation.go: ValidateResourceQuotaSpec and the update and status rules): hard names that
// are no quota resource, negative and fractional amounts, unknown, conflicting or inapplicable scopes, scope selector
// operators and values, and changed scopes. Before, the sim stored all of these.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { http, quotaSynced } from './sim-helpers.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ nodes: 0, pods: 0, churn: 0, controllers: {} });
  expect((await http(sim.url, '/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'rq' } } })).status).toBe(201);
});
afterAll(() => sim.close());

const QUOTAS = '/api/v1/namespaces/rq/resourcequotas';
const create = (name: string, spec: Record<string, unknown>) => http(sim.url, QUOTAS, { method: 'POST', body: { metadata: { name }, spec } });

/** The 422's message and its causes (field, message), as a user reads them. */
async function refused(name: string, spec: Record<string, unknown>): Promise<{ message: string; causes: { field: string; message: string }[] }> {
  const r = await create(name, spec);
  expect(r.status, JSON.stringify(r.json)).toBe(422);
  expect(r.json).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { name, kind: 'ResourceQuota' } });
  // Nothing is stored.
  expect((await http(sim.url, `${QUOTAS}/${name}`)).status).toBe(404);
  return { message: r.json.message, causes: r.json.details.causes.map((c: any) => ({ field: c.field, message: c.message })) };
}

const EXISTS_ONLY = "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

describe('ResourceQuota validation', () => {
  it('hard names: a bare name that is no quota resource, one that is no qualified name; prefixed names pass', async () => {
    const r = await refused('names', { hard: { gpus: '1', storage: '1Gi', 'bad name/x': '1', 'count/pods': '1', 'requests.example.com/gpu': '1' } });
    expect(r.causes).toEqual([
      { field: 'spec.hard[bad name/x]', message: expect.stringMatching(/^Invalid value: "bad name\/x": prefix part a lowercase RFC 1123 subdomain/) },
      { field: 'spec.hard[gpus]', message: 'Invalid value: "gpus": must be a standard resource type or fully qualified' },
      { field: 'spec.hard[gpus]', message: 'Invalid value: "gpus": must be a standard resource for quota' },
      { field: 'spec.hard[storage]', message: 'Invalid value: "storage": must be a standard resource for quota' },
    ]);
  });

  it('amounts: negative anywhere, fractional for counted resources (objects, count/…, per-class claims), as kube prints the Quantity', async () => {
    const r = await refused('amounts', { hard: { 'requests.cpu': '-1', pods: '1500m', 'count/configmaps': '2500m', 'limits.memory': '1.5', services: '-2' } });
    expect(r.causes).toEqual([
      { field: 'spec.hard[count/configmaps]', message: 'Invalid value: resource.Quantity{i:resource.int64Amount{value:2500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2500m", Format:"DecimalSI"}: must be an integer' },
      { field: 'spec.hard[pods]', message: 'Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer' },
      { field: 'spec.hard[requests.cpu]', message: 'Invalid value: "-1": must be greater than or equal to 0' },
      { field: 'spec.hard[services]', message: 'Invalid value: "-2": must be greater than or equal to 0' },
    ]);
    // A fraction within a milli of a whole number is whole to kube (MilliValue rounds up); memory may be fractional.
    expect((await create('nearly-whole', { hard: { pods: '1.9999', 'limits.memory': '1.5', 'requests.example.com/gpu': '0.5' } })).status).toBe(201);
  });

  it('scopes: unknown, conflicting, and applied to a resource they do not limit', async () => {
    expect((await refused('unknown', { hard: { pods: '1' }, scopes: ['Sometimes'] })).message)
      .toBe('ResourceQuota "unknown" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope');
    expect((await refused('conflict', { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort'] })).causes).toEqual([
      { field: 'spec.scopes', message: 'Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating", "BestEffort", "NotBestEffort"}: conflicting scopes' },
      { field: 'spec.scopes', message: 'Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating", "BestEffort", "NotBestEffort"}: conflicting scopes' },
    ]);
    // BestEffort limits pods only; the other pod scopes pods, cpu and memory; names outside the standard set are not checked.
    expect((await refused('best-effort-cpu', { hard: { pods: '1', 'requests.cpu': '1', 'count/pods': '1' }, scopes: ['BestEffort'] })).message)
      .toBe('ResourceQuota "best-effort-cpu" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource');
    expect((await refused('terminating-services', { hard: { services: '1', 'requests.storage': '1Gi' }, scopes: ['Terminating'] })).causes).toEqual([
      { field: 'spec.scopes', message: 'Invalid value: []core.ResourceQuotaScope{"Terminating"}: unsupported scope applied to resource' },
      { field: 'spec.scopes', message: 'Invalid value: []core.ResourceQuotaScope{"Terminating"}: unsupported scope applied to resource' },
    ]);
    expect((await create('cross-namespace', { hard: { pods: '1', 'limits.memory': '1Gi' }, scopes: ['CrossNamespacePodAffinity'] })).status).toBe(201);
  });

  it('scope selectors: operators per scope, values per operator, conflicts, inapplicable resources', async () => {
    const selector = (...matchExpressions: Record<string, unknown>[]) => ({ hard: { pods: '1' }, scopeSelector: { matchExpressions } });
    expect((await refused('in-terminating', selector({ scopeName: 'Terminating', operator: 'In', values: ['x'] }))).causes).toEqual([
      { field: 'spec.scopeSelector.matchExpressions.operator', message: `Invalid value: "In": ${EXISTS_ONLY}` },
    ]);
    expect((await refused('in-empty', selector({ scopeName: 'PriorityClass', operator: 'In' }))).causes).toEqual([
      { field: 'spec.scopeSelector.matchExpressions.values', message: "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector" },
    ]);
    expect((await refused('exists-values', selector({ scopeName: 'PriorityClass', operator: 'Exists', values: ['high'] }))).causes).toEqual([
      { field: 'spec.scopeSelector.matchExpressions.values', message: 'Invalid value: []string{"high"}: must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector' },
    ]);
    expect((await refused('bad-operator', selector({ scopeName: 'Nope', operator: 'Equals', values: ['a'] }))).causes).toEqual([
      { field: 'spec.scopeSelector.matchExpressions.scopeName', message: 'Invalid value: "Nope": unsupported scope' },
      { field: 'spec.scopeSelector.matchExpressions.operator', message: 'Invalid value: "Equals": not a valid selector operator' },
    ]);
    // kube's "conflicting scopes" for a selector shows spec.scopes, nil here.
    expect((await refused('selector-conflict', selector({ scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'NotBestEffort', operator: 'Exists' }))).causes).toEqual([
      { field: 'spec.scopeSelector.matchExpressions', message: 'Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes' },
    ]);
    const r = await refused('selector-cpu', { hard: { 'requests.cpu': '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }] } });
    expect(r.causes).toEqual([{
      field: 'spec.scopeSelector.matchExpressions',
      message: 'Invalid value: core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"Exists", Values:[]string(nil)}}}: unsupported scope applied to resource',
    }]);
    expect((await create('selector-ok', selector({ scopeName: 'PriorityClass', operator: 'NotIn', values: ['low'] }, { scopeName: 'NotTerminating', operator: 'Exists' }))).status).toBe(201);
  });

  it('an update may change the limits but not the scopes; a status write is checked too', async () => {
    const made = await create('fixed', { hard: { pods: '5' }, scopes: ['NotTerminating'] });
    expect(made.status).toBe(201);
    const put = (body: unknown, sub = '') => http(sim.url, `${QUOTAS}/fixed${sub}`, { method: 'PUT', body });
    // Read once the controller has written its status, so the write that follows is not a conflict with it.
    const current = async () => { await quotaSynced(sim.url, 'rq', 'fixed'); return (await http(sim.url, `${QUOTAS}/fixed`)).json; };
    expect((await put({ ...await current(), spec: { hard: { pods: '6' }, scopes: ['NotTerminating'] } })).status).toBe(200);
    const changed = await put({ ...await current(), spec: { hard: { pods: '6' }, scopes: ['Terminating'] } });
    expect(changed.status).toBe(422);
    expect(changed.json.message).toBe('ResourceQuota "fixed" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable');
    const status = await put({ ...await current(), status: { hard: { pods: '6' }, used: { pods: '-1', widgets: '1' } } }, '/status');
    expect(status.status).toBe(422);
    expect(status.json.details.causes.map((c: any) => c.field)).toEqual(['status.used[pods]', 'status.used[widgets]', 'status.used[widgets]']);
  });
});
