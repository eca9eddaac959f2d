import { describe, expect, it } from 'vitest';
import { parseInjectSpec } from '../../src/faults/inject-spec.js';
import { THROTTLE_RETRY_AFTER_SECONDS, WriteFaults } from '../../src/faults/write-faults.js';

const faults = (...specs: string[]) => new WriteFaults(specs.map(parseInjectSpec));
const deployment = { group: 'apps', resource: 'deployments', name: 'web' };

describe('WriteFaults', () => {
  it('answers exactly the Nth write, once, and lets the others through', () => {
    const f = faults('conflict@2', 'error@4');
    expect(f.next()).toBeUndefined();
    const second = f.next();
    expect(second?.kind).toBe('conflict');
    expect(second?.text).toBe('conflict@2');
    expect(f.next()).toBeUndefined();
    expect(f.next()?.text).toBe('error@4');
    expect(f.next()).toBeUndefined();
    expect(f.unused()).toEqual([]);
  });

  it('answers a conflict as the API server does: 409 Conflict naming the object, which client-go retries on', () => {
    const status = faults('conflict@1').next()!.status(deployment);
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 409, reason: 'Conflict', details: { name: 'web', group: 'apps', kind: 'deployments' } });
    expect(status.message).toBe('Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again (injected by kwatch: conflict@1)');
    // The core group has no suffix: `pods "p"`, as kube says it.
    expect(faults('conflict@1').next()!.status({ group: '', resource: 'pods', name: 'p' }).message).toMatch(/^Operation cannot be fulfilled on pods "p": /);
  });

  it('answers an error with 500 InternalError and a throttle with 429 and Retry-After', () => {
    const error = faults('error@1').next()!.status(deployment);
    expect(error).toMatchObject({ status: 'Failure', code: 500, reason: 'InternalError', details: { name: 'web', causes: [{ message: 'injected by kwatch: error@1' }] } });
    expect(error.message).toBe('Internal error occurred: injected by kwatch (error@1)');
    const throttle = faults('throttle@1').next()!.status(deployment);
    expect(throttle).toMatchObject({ status: 'Failure', code: 429, reason: 'TooManyRequests', details: { name: 'web', retryAfterSeconds: THROTTLE_RETRY_AFTER_SECONDS } });
    expect(THROTTLE_RETRY_AFTER_SECONDS).toBe(1);
    expect(throttle.message).toBe('the server has received too many requests and has asked us to try again later (injected by kwatch: throttle@1)');
  });

  it('reports the write faults whose write never came, and ignores watch faults', () => {
    const f = faults('throttle@3', 'conflict@1', 'expire@5s');
    f.next();
    expect(f.unused()).toEqual(['throttle@3']);
  });

  it('is empty only with no write fault at all (watch faults do not count)', () => {
    expect(faults('expire@5s', 'hide-delete:a/b').empty).toBe(true);
    expect(faults('error@1').empty).toBe(false);
    // Still not empty once its fault has fired (mutation testing, issue 39).
    const used = faults('conflict@1');
    used.next();
    expect(used.empty).toBe(false);
  });
});
