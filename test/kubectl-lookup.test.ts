// The suite's kubectl floor: the one line a run stops with when kubectl is too old or missing.
import { chmodSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedKubectl, kubectlFloorProblem, MIN_KUBECTL_VERSION, parseKubectlVersion } from './kubectl-lookup.js';
import { tempDir } from './temp-dir.js';

/** A stand-in kubectl that prints what `kubectl version --client -o json` of some release prints. */
function fakeKubectl(json: string): string {
  const dir = tempDir('kwatch-fake-kubectl-');
  const file = join(dir, 'kubectl');
  writeFileSync(file, `#!/bin/sh\ncat <<'EOF'\n${json}\nEOF\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('the kubectl the tests need', () => {
  it('is 1.26 or newer', () => {
    expect(MIN_KUBECTL_VERSION).toBe('1.26');
  });

  it("reads kubectl's client version, a vendor's \"32+\" minor included", () => {
    expect(parseKubectlVersion('{"clientVersion":{"major":"1","minor":"32+","gitVersion":"v1.32.4-dispatcher"}}')).toEqual({ major: 1, minor: 32, text: 'v1.32.4-dispatcher' });
    expect(parseKubectlVersion('Client Version: v1.32.4')).toBeUndefined();
  });

  it("stops the run in one line naming the version found and the minimum (Debian bookworm's 1.20)", () => {
    const old = installedKubectl(fakeKubectl('{"clientVersion":{"major":"1","minor":"20","gitVersion":"v1.20.2","platform":"linux/amd64"}}'));
    expect(old).toEqual({ major: 1, minor: 20, text: 'v1.20.2' });
    const message = kubectlFloorProblem(old, 'kubectl');
    expect(message).toBe('the tests need kubectl >= 1.26, found v1.20.2 ("kubectl"): install kubectl 1.26 or newer, or point KUBECTL at one');
  });

  it('lets 1.26, 1.32 and a 2.x through', () => {
    for (const v of [{ major: 1, minor: 26 }, { major: 1, minor: 32 }, { major: 2, minor: 0 }]) expect(kubectlFloorProblem({ ...v, text: '' })).toBeUndefined();
  });

  it('says so when kubectl is missing or does not tell its version', () => {
    expect(installedKubectl(join(tmpdir(), 'no-such-kubectl'))).toBe('missing');
    expect(kubectlFloorProblem('missing', 'kubectl')).toBe('the tests need kubectl >= 1.26, and "kubectl" was not found: install kubectl 1.26 or newer, or point KUBECTL at one');
    expect(installedKubectl(fakeKubectl('not json'))).toBe('unreadable');
  });
});
