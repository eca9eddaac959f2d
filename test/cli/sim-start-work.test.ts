// What the embedded sim (--sim) does at every start, kept to what a run uses: ~520 CLI runs of the suite start one.
import { describe, expect, it } from 'vitest';
import { ServiceAccountTokens } from '../../src/sim/auth/service-account-tokens.js';

describe('the embedded sim\'s start-up work', () => {
  it('makes the service-account signing key only when a token is first issued or checked (2–5 ms of CPU a start)', () => {
    const tokens = new ServiceAccountTokens();
    expect(tokens.hasKey).toBe(false);
    const { token } = tokens.issue({ namespace: 'default', name: 'builder', uid: 'u-1' }, tokens.apiAudiences, 600, 1_700_000_000_000);
    expect(tokens.hasKey).toBe(true);
    // The key made on first use signs and checks as the eager one did; one key for the run.
    expect(tokens.verify(token, tokens.apiAudiences, 1_700_000_001_000)).toMatchObject({ claims: { sub: 'system:serviceaccount:default:builder' } });
    expect(tokens.publicJwk()).toMatchObject({ alg: 'ES256', kty: 'EC', crv: 'P-256', kid: expect.any(String) });
    const checkedFirst = new ServiceAccountTokens();
    expect(checkedFirst.verify(token, checkedFirst.apiAudiences, 1_700_000_001_000)).toEqual({ error: 'invalid signature' });
  });
});
