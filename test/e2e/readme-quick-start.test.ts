// The README's quick start, run as written (built CLI, real kubectl): `kwatch sim --kubeconfig-out F &` and the
// next lines must work at once. Only the install line is left out, `kwatch` and `kubectl-kwatch` come from bin/ on
// PATH, and /tmp/sim.kubeconfig becomes a file of this test's temporary folder.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, KUBECTL } from './events-helpers.js';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'kwatch-e2e-quick-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The shell block after "To use it as a kubectl plugin" in README.md. */
function quickStartBlock(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /To use it as a kubectl plugin[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no quick start block after "To use it as a kubectl plugin"');
  return block[1].split('\n').filter((l) => l.trim());
}

/** Whether a TCP connection to host:port is refused (a server still listening accepts it). */
function refused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(true));
  });
}

describe('the README quick start', () => {
  it('runs as written: kubectl reads the sim\'s kubeconfig on the line after `kwatch sim … &`', { timeout: 120_000 }, async () => {
    const lines = quickStartBlock();
    expect(lines[0]).toMatch(/^npm run build && npm link/);
    const kubeconfig = join(dir, 'sim.kubeconfig');
    const script = lines.slice(1).map((l) => l.replaceAll('/tmp/sim.kubeconfig', kubeconfig));
    // kwatch and kubectl-kwatch from bin/, as `npm link` would install them; kubectl as the tests find it.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(join(root, 'bin', 'run.js'), join(bin, 'kwatch'));
    symlinkSync(join(root, 'bin', 'kubectl-kwatch'), join(bin, 'kubectl-kwatch'));
    const path = [bin, ...(isAbsolute(KUBECTL) ? [dirname(KUBECTL)] : []), process.env.PATH ?? ''].join(delimiter);
    const file = join(dir, 'quick-start.sh');
    // Each line must succeed; the background jobs are stopped at the end, the events watch before the sim it watches
    // (else the watch, still running for a moment, reports the sim's connection refused). `set +e` first: under
    // `set -e` the `wait` of a job killed by SIGTERM (status 143) ended the trap after the first job, and the sim
    // outlived the test.
    writeFileSync(file, ['set -e', 'trap \'set +e; for j in $(jobs -p | tac); do kill $j 2>/dev/null; wait $j 2>/dev/null; done; true\' EXIT', ...script, 'sleep 2', 'kubectl get deployments'].join('\n'));
    const res = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('bash', [file], { env: childEnv({ PATH: path, HOME: dir }), stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(res.code, res.out).toBe(0);
    // kubectl's first read comes right after `kwatch sim … &`: it must find the kubeconfig written and the sim up.
    expect(res.out.split('deployment.apps/web created')[0]).not.toMatch(/localhost:8080|refused/);
    expect(res.out).toMatch(/^NAMESPACE\s+NAME\s+READY\s+STATUS/m);
    expect(res.out).toMatch(/deployment\.apps\/web created/);
    expect(res.out).toMatch(/^web\s+\d\/3/m);
    // The script stopped its sim: nothing listens on the sim's port any more.
    const server = new URL(/^\s*server:\s*(\S+)/m.exec(readFileSync(kubeconfig, 'utf8'))![1]);
    expect(await refused(server.hostname.replace(/^\[|\]$/g, ''), Number(server.port))).toBe(true);
  });
});
