// pagedList: pages with decoded tokens, and the three answers to an expired continue token.
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../src/informer/errors.js';
import type { KubeObject, ListerWatcher, ListOptions, ListPage, Status } from '../../src/informer/types.js';
import { decodeContinueToken, describeContinueToken } from '../../src/kube/lister-watchers/continue-token.js';
import { ContinueExpiredError, explainExpiredContinue, pagedList } from '../../src/kube/lister-watchers/paged-list.js';

const token = (rv: number, start: string) => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: `${start}\u0000` })).toString('base64url');
const obj = (name: string): KubeObject => ({ metadata: { name, namespace: 'ns' } });

/** Serves `total` objects in pages of `limit`; `expireAt` (request number) answers 410 once, with a fresh token. */
function fakeServer(total: number, opts: { expireAt?: number; freshToken?: boolean } = {}) {
  const requests: ListOptions[] = [];
  const names = Array.from({ length: total }, (_, i) => `o-${String(i).padStart(2, '0')}`);
  const lw: ListerWatcher = {
    async list(o) {
      requests.push(o);
      if (requests.length === opts.expireAt) {
        const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: opts.freshToken === false ? {} : { continue: token(-1, decode(o.continue).start) }, status: 'Failure', reason: 'Expired', message: 'too old', code: 410 };
        throw new StatusError(status);
      }
      const from = o.continue ? names.indexOf(decode(o.continue).start) + 1 : 0;
      const limit = o.limit ?? total;
      const items = names.slice(from, from + limit).map(obj);
      const last = from + limit >= total;
      const page: ListPage = { kind: 'PodList', metadata: { resourceVersion: '100', ...(last ? {} : { continue: token(100, items.at(-1)!.metadata.name!), remainingItemCount: total - from - limit }) }, items, bytes: 10 * items.length };
      return page;
    },
    async watch() {
      throw new Error('not used');
    },
  };
  return { lw, requests };
}

function decode(t: string | undefined) {
  const d = decodeContinueToken(t ?? '');
  if (!d) throw new Error(`bad token ${t}`);
  return d;
}

describe('pagedList', () => {
  it('follows continue tokens, sending only limit and continue after the first page', async () => {
    const { lw, requests } = fakeServer(50);
    const r = await pagedList(lw, { pageSize: 7, resourceVersion: '0' });
    expect(r.pages.map((p) => p.items)).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
    expect(r.pages.map((p) => p.remainingItemCount)).toEqual([43, 36, 29, 22, 15, 8, 1, undefined]);
    expect(r.items).toHaveLength(50);
    expect(r.resourceVersion).toBe('100');
    expect(r.bytes).toBe(500);
    expect(requests[0]).toEqual({ limit: 7, resourceVersion: '0' });
    expect(requests[1]).toEqual({ limit: 7, continue: token(100, 'o-06') });
  });

  it('fails by default on an expired token, keeping what it read and the fresh token', async () => {
    const { lw } = fakeServer(50, { expireAt: 3 });
    const err = await pagedList(lw, { pageSize: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContinueExpiredError);
    const { expired, partial } = err as ContinueExpiredError;
    expect(expired).toMatchObject({ page: 3, resourceVersion: '100', decision: 'fail', itemsSoFar: 20 });
    expect(decode(expired.freshToken)).toEqual({ v: 'meta.k8s.io/v1', rv: -1, start: 'o-19' });
    expect(partial.pages).toHaveLength(2);
    expect(explainExpiredContinue(expired)).toContain('resourceVersion 100');
  });

  it('--on-expired restart starts over from page 1 and keeps no duplicate items', async () => {
    const { lw, requests } = fakeServer(30, { expireAt: 2 });
    const r = await pagedList(lw, { pageSize: 10, onExpired: 'restart' });
    expect(r.items.map((o) => o.metadata.name)).toEqual(Array.from({ length: 30 }, (_, i) => `o-${String(i).padStart(2, '0')}`));
    expect(r.pages.map((p) => [p.page, p.after])).toEqual([[1, undefined], [3, 'restart'], [4, undefined], [5, undefined]]);
    expect(requests[2]).toEqual({ limit: 10 });
    expect(r.consistent).toBe(true);
  });

  it('--on-expired inconsistent goes on with the fresh token from the 410 and says the list is inconsistent', async () => {
    const { lw, requests } = fakeServer(30, { expireAt: 2 });
    const r = await pagedList(lw, { pageSize: 10, onExpired: 'inconsistent' });
    expect(r.items).toHaveLength(30);
    expect(decode(requests[2].continue).rv).toBe(-1);
    expect(r.consistent).toBe(false);
    expect(r.expired).toHaveLength(1);
  });

  it('--on-expired inconsistent without a fresh token has to fail', async () => {
    const { lw } = fakeServer(30, { expireAt: 2, freshToken: false });
    const err = (await pagedList(lw, { pageSize: 10, onExpired: 'inconsistent' }).catch((e: unknown) => e)) as ContinueExpiredError;
    expect(err.expired.decision).toBe('fail');
    expect(explainExpiredContinue(err.expired)).toContain('not possible here');
  });

  it('an error that is not an expired continue token propagates unchanged', async () => {
    const bad = new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', message: 'nope', code: 400 });
    const lw: ListerWatcher = { list: () => Promise.reject(bad), watch: () => Promise.reject(new Error('x')) };
    await expect(pagedList(lw, { pageSize: 10, onExpired: 'restart' })).rejects.toBe(bad);
  });
});

describe('continue tokens', () => {
  it('decodes the standard form and leaves opaque tokens alone', () => {
    expect(describeContinueToken(token(10245, 'default/nginx'))).toBe('rv=10245 start=default/nginx');
    expect(decodeContinueToken('eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTAyNDUsInN0YXJ0IjoibmdpbnhcdTAwMDAifQ')).toEqual({ v: 'meta.k8s.io/v1', rv: 10245, start: 'nginx' });
    expect(decodeContinueToken('not a token!')).toBeUndefined();
    expect(describeContinueToken('x'.repeat(60), 10)).toBe('xxxxxxxxx…');
  });
});
