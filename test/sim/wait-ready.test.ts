// `kwatch sim --wait`: ready once the sim that wrote the kubeconfig (and its control token) answers; a file left
// by a dead sim keeps it waiting, a kubeconfig that is not a sim's is one line, and the wait is bounded.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimServer } from '../../src/sim/server.js';
import { SimWaitError, waitForSim } from '../../src/sim/wait-ready.js';

const dir = mkdtempSync(join(tmpdir(), 'kwatch-wait-ready-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('waitForSim', () => {
  it('waits past a dead sim\'s kubeconfig until a live one replaces it, also over TLS with users', async () => {
    const file = join(dir, 'kubeconfig');
    const dead = await startSimServer();
    await dead.writeKubeconfig(file);
    await dead.close();
    const waiting = waitForSim(file, 20_000);
    let settled = false;
    void waiting.then(() => (settled = true), () => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    const live = await startSimServer({ tls: true, users: true });
    try {
      await live.writeKubeconfig(file);
      expect(await waiting).toBe(live.url);
    } finally {
      await live.close();
    }
  });

  it('gives up after its bound, in one line naming the file and how to start a sim', async () => {
    const file = join(dir, 'nothing-here');
    await expect(waitForSim(file, 300)).rejects.toThrow(new RegExp(`^no kwatch sim answered for ${file} within 0.3s \\(.*\\): start one with kwatch sim --kubeconfig-out ${file}$`));
  });

  it('refuses a kubeconfig kwatch sim did not write', async () => {
    const file = join(dir, 'users-config');
    writeFileSync(file, 'apiVersion: v1\nkind: Config\nclusters: []\n');
    writeFileSync(`${file}.control-token`, 'x'.repeat(32));
    await expect(waitForSim(file, 5000)).rejects.toThrow(SimWaitError);
  });
});
