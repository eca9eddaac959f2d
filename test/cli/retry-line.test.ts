import { describe, expect, it } from 'vitest';
import { retryLine } from '../../src/cli/error-message.js';
import { fakeErrors } from '../../src/informer/fake-lister-watcher.js';

describe('retryLine', () => {
  it("drops a server message's own full stop before the semicolon", () => {
    const line = retryLine('watch /api/v1/pods', fakeErrors.tooManyRequests(6), 6000);
    expect(line).toMatch(/please try again later; retrying in 6\.0s$/);
  });
});
