// The first-contact policy on its own: which answers fail at once, which are retried, how long for.
import { describe, expect, it } from 'vitest';
import { ConnectionError, ObjectTooLargeError, RunStopped, StatusError } from '../../src/informer/errors.js';
import { classifyFirstContactError, FirstContact, FirstContactError, type FirstContactRetry } from '../../src/kube/http/first-contact.js';

const status = (code: number, reason = 'Whatever') => new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `m${code}`, reason, code });

describe('classifyFirstContactError', () => {
  it('retries 5xx, 429 and a server that is down; fails at once on 4xx, redirects, malformed or oversized answers, TLS and DNS', () => {
    expect([500, 502, 503, 504, 429].map((c) => classifyFirstContactError(status(c)))).toEqual(Array(5).fill('retry'));
    expect([400, 401, 403, 404, 422, 302].map((c) => classifyFirstContactError(status(c)))).toEqual(Array(6).fill('fatal'));
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']) expect(classifyFirstContactError(new ConnectionError('x', code))).toBe('retry');
    for (const code of ['ENOTFOUND', 'CERT_HAS_EXPIRED', undefined]) expect(classifyFirstContactError(new ConnectionError('x', code))).toBe('fatal');
    expect(classifyFirstContactError(new ObjectTooLargeError('a watch event', 1024))).toBe('fatal');
  });

  it('a 410 is the caller\'s to handle at a known resourceVersion, and fatal from the current state', () => {
    expect(classifyFirstContactError(status(410, 'Expired'), '1234')).toBe('pass');
    expect(classifyFirstContactError(status(410, 'Expired'), '0')).toBe('fatal');
    expect(classifyFirstContactError(status(410, 'Expired'))).toBe('fatal');
  });
});

describe('FirstContact', () => {
  it('retries with the reflector backoff, one notice per retry, and gives up at the deadline with the last error', async () => {
    let now = 0;
    const retries: FirstContactRetry[] = [];
    // The clock moves only by the waits, so the deadline is exact.
    const contact = new FirstContact({ deadlineMs: 5000, now: () => now, random: () => 0, onRetry: (r) => retries.push(r), sleep: async (ms) => void (now += ms) });
    let calls = 0;
    const err = await contact.attempt('list pods', async () => { calls++; throw status(503); }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FirstContactError);
    expect((err as FirstContactError).last).toMatchObject({ message: 'm503' });
    expect((err as Error).message).toBe('gave up on list pods after 5s of retries (the first-contact deadline: --request-timeout, 30s when unset)');
    // 0.8, 1.6, then what is left of the 5 s (not 3.2 s past it), then the last try.
    expect(retries.map((r) => r.delayMs)).toEqual([800, 1600, 2600]);
    expect(calls).toBe(4);
    expect(contact.succeeded).toBe(false);
  });

  it('says how long the run went on when the user stopped it, not how long since its first attempt began', async () => {
    let now = 1400; // the first attempt began late: discovery and start-up took 1.4 s of a --for 2s
    const ac = new AbortController();
    const contact = new FirstContact({ deadlineMs: 30_000, now: () => now, signal: ac.signal, sleep: async (ms) => { now += ms; if (now >= 2000) ac.abort(new RunStopped('duration', 2000)); } });
    const err = await contact.attempt('the first pods request', async () => { throw status(500); }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('stopped after 2s while the first pods request was still failing');
    // A stop that does not tell the run's length: the time since the first attempt.
    expect(new FirstContact({ deadlineMs: 1 }).secondsAtStop(AbortSignal.abort(new Error('stopped')))).toBe(0);
  });

  it('honours Retry-After, stops retrying once something succeeded, and fails at once on a 403', async () => {
    const delays: number[] = [];
    const contact = new FirstContact({ deadlineMs: 60_000, random: () => 0, onRetry: (r) => delays.push(r.delayMs) });
    let calls = 0;
    const slow = new StatusError(status(429).status, 0.05);
    await expect(contact.attempt('watch pods', async () => (++calls === 1 ? Promise.reject(slow) : 'ok'))).resolves.toBe('ok');
    expect(delays).toEqual([800]);
    expect(contact.succeeded).toBe(true);
    // After the first answer, failures are the informer's: passed through untouched, not retried.
    await expect(contact.attempt('list pods', () => Promise.reject(status(500)))).rejects.toMatchObject({ message: 'm500' });
    const fresh = new FirstContact({ deadlineMs: 60_000 });
    await expect(fresh.attempt('list pods', () => Promise.reject(status(403)))).rejects.toMatchObject({ message: 'm403' });
  });
});
