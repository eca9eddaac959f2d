// kwatch's own --wire protobuf: lists and watches asked for as client-go's protobuf clients ask, read with src/wire's
// decoder where the sim answers protobuf, as JSON where it answers JSON (kinds without a schema, custom resources),
// and errors sent as a protobuf Status read as that Status.
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../src/informer/errors.js';
import { CONFIGMAPS, firstEventAfterCreate, lastContentType, wireSims } from './wire-helpers.js';

const startSim = wireSims();
const setup = () => startSim({ pods: 2, nodes: 2, churn: 0 });
const lastType = lastContentType;

describe('--wire protobuf against the sim', () => {
  it('a list comes in protobuf, with the same page as in JSON, and the http record says so', async () => {
    const { lw, records } = await setup();
    const page = await lw('protobuf').list({});
    expect(lastType(records)).toBe('application/vnd.kubernetes.protobuf');
    const json = await lw('json').list({});
    expect(lastType(records)).toBeUndefined();
    expect(page.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['one', 'two']));
    expect({ ...page, bytes: 0 }).toEqual({ ...json, bytes: 0 });
    expect(page.bytes).toBeGreaterThan(0);
    const pods = await lw('protobuf', { group: '', version: 'v1', resource: 'pods', namespaced: true }).list({});
    expect({ ...pods, bytes: 0 }).toEqual({ ...(await lw('json', { group: '', version: 'v1', resource: 'pods', namespaced: true }).list({})), bytes: 0 });
  });

  it('a watch comes as ;stream=watch frames, each event decoded', async () => {
    const { sim, lw, records } = await setup();
    const page = await lw('protobuf').list({});
    const e = await firstEventAfterCreate(sim, lw('protobuf'), page.metadata.resourceVersion, () => expect(lastType(records)).toBe('application/vnd.kubernetes.protobuf;stream=watch'));
    expect([e.type, e.object.kind, e.object.metadata.name, (e.object as { data?: unknown }).data]).toEqual(['ADDED', 'ConfigMap', 'three', { k: 'three' }]);
    expect(e.bytes).toBeGreaterThan(0);
  });

  it('a kind the server answers in JSON (apiservices: no schema in the sim) is read as JSON', async () => {
    const { lw, records } = await setup();
    const page = await lw('protobuf', { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', namespaced: false }).list({});
    expect(lastType(records)).toBeUndefined();
    expect(page.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['v1.', 'v1.apps']));
  });

  it('an error sent as a protobuf Status is read as that Status', async () => {
    const { lw } = await setup();
    const err = await lw('protobuf', { ...CONFIGMAPS, fieldSelector: 'no.such.field=x' }).list({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest', message: expect.stringContaining('no.such.field') });
  });
});
