// The demo script (scripts/demo.js): the requests it sends itself are printed as they are sent, with the
// server's answers; a refused request fails its step, and a failed step ends the demo (one line, exit 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';

interface Io {
  write(s: string): void;
  error(s: string): void;
  bold(s: string): string;
  run(args: string[]): Promise<number>;
}
interface Step {
  title: string;
  args?: string[];
  run?: (write: (s: string) => void) => Promise<void>;
}
interface DemoModule {
  createDeployment(server: string, write: (s: string) => void): Promise<void>;
  runSteps(steps: Step[], io: Io): Promise<number>;
}

// A path the type checker does not follow: the script is plain JavaScript.
const SCRIPT = '../../scripts/demo.js';
let demo: DemoModule;
let sim: SimServer;

beforeAll(async () => {
  demo = (await import(SCRIPT)) as DemoModule;
  sim = await startSimServer({ port: 0, pods: 0, nodes: 1, churn: 0 });
});
afterAll(() => sim?.close());

describe('scripts/demo.js', () => {
  it('prints the requests it really sends and the answers; a refused one fails with the server\'s message', async () => {
    let out = '';
    await demo.createDeployment(sim.url, (s) => (out += s));
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\$ POST \/api\/v1\/namespaces \{"apiVersion":"v1","kind":"Namespace","metadata":\{"name":"demo"\}\}$/);
    expect(lines[1]).toBe('→ 201 Created');
    expect(lines[2]).toMatch(/^\$ POST \/apis\/apps\/v1\/namespaces\/demo\/deployments \{"apiVersion":"apps\/v1","kind":"Deployment"/);
    expect(lines[3]).toBe('→ 201 Created');
    expect(out).not.toContain('kubectl');
    expect(sim.api.get({ group: 'apps', version: 'v1', resource: 'deployments' }, 'demo', 'web')).toBeDefined();

    await expect(demo.createDeployment(sim.url, () => {})).rejects.toThrow(/^POST \/api\/v1\/namespaces answered 409 Conflict: namespaces "demo" already exists$/);
  });

  it('stops at the first failed step with one line and exit code 1', async () => {
    let out = '';
    let err = '';
    const ran: string[][] = [];
    const code = await demo.runSteps(
      [
        { title: 'first', args: ['events', 'pods'] },
        { title: 'second', args: ['list', 'pods'] },
      ],
      { write: (s) => (out += s), error: (s) => (err += s), bold: (s) => s, run: async (args) => (ran.push(args), 2) },
    );
    expect(code).toBe(1);
    expect(ran).toEqual([['events', 'pods']]);
    expect(err).toBe('demo: step "first" failed: kwatch events pods exited with code 2\n');
    expect(out).toBe('\n== first\n$ kwatch events pods\n\n');
  });
});
