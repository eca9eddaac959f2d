// What wire-cbor.test.ts and wire-protobuf.test.ts share: a throwaway kubeconfig and cache per run, the Content-Type
// of each answer to a pods request as the ndjson http records give it, a synced `events` run, and --raw's refusal.
import { join } from 'node:path';
import { expect } from 'vitest';
import { kwatch } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

/** KUBECONFIG and KUBECACHEDIR in a fresh temporary folder (no kubeconfig at all: the runs use --sim). */
export function wireEnv(prefix: string): Record<string, string> {
  const dir = tempDir(prefix);
  return { KUBECONFIG: join(dir, 'none'), KUBECACHEDIR: join(dir, 'cache') };
}

type Rec = { stage: string; op: string; contentType?: string; url?: string };

/** Each pods response's Content-Type in order, `json` where the record carries none (a JSON list). */
export function podHttpTypes(stdout: string): string[] {
  return stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec)
    .filter((r) => r.stage === 'http' && r.op === 'response' && /\/pods/.test(r.url ?? '')).map((r) => r.contentType ?? 'json');
}

/** Runs `kwatch events …` (until synced, ndjson), checks it exited 0 and synced, and returns its output. */
export async function syncedEvents(args: string[], env: Record<string, string>): Promise<{ stdout: string; types: string[] }> {
  const r = await kwatch(args, env);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('"op":"synced"');
  return { stdout: r.stdout, types: podHttpTypes(r.stdout) };
}

/** --raw prints JSON lines as sent, so it refuses another wire format in one line. */
export async function expectRawRefused(wire: string, env: Record<string, string>): Promise<void> {
  const raw = await kwatch(['events', 'pods', '--sim', '--raw', '--wire', wire], env);
  expect([raw.code, raw.stderr.trim()]).toEqual([1, `error: --raw prints the watch stream's JSON lines as sent: it cannot be combined with --wire ${wire}`]);
}
