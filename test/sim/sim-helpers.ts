// Test helpers for the sim: HTTP requests against a started server and a line-by-line watch reader.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tempDir } from '../temp-dir.js';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/server.js';
import { request, type IncomingMessage } from 'node:http';
import type { SimObject } from '../../src/sim/api.js';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export function http(base: string, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  return send(base + path, init.method ?? 'GET', init);
}

/**
 * A request with the path sent byte for byte (`..`, `%2e%2e`, `%ZZ` included): a URL string given to node:http is
 * parsed by WHATWG URL first, which resolves dot segments — so a test of path handling must pass the path on its own.
 */
export function rawHttp(base: string, method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResult> {
  const { hostname, port } = new URL(base);
  return send({ host: hostname, port, path }, method, init);
}

function send(target: string | { host: string; port: string; path: string }, method: string, init: { body?: unknown; headers?: Record<string, string> }): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const headers = { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers };
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: any;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    };
    const req = typeof target === 'string' ? request(target, { method, headers }, onResponse) : request({ ...target, method, headers }, onResponse);
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** GET or POST on the sim's control endpoint (/_kwatch/…) with its per-run control token. */
export function controlHttp(sim: Pick<SimServer, 'url' | 'controlToken'>, path: string, init: { method?: string; body?: unknown } = {}): Promise<HttpResult> {
  return http(sim.url, path, { ...init, headers: { Authorization: `Bearer ${sim.controlToken}` } });
}

export interface WatchEvent { type: string; object: any }

/** An open watch: events arrive in `events`; `lines` holds raw lines; `ended` resolves when the server closes. */
export interface WatchReader {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: WatchEvent[];
  lines: string[];
  /** Bytes after the last newline (a cut line). */
  partial(): string;
  ended: Promise<'end' | 'error'>;
  next(timeoutMs?: number): Promise<WatchEvent>;
  waitFor(n: number, timeoutMs?: number): Promise<WatchEvent[]>;
  close(): void;
}

export function watch(base: string, path: string): Promise<WatchReader> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method: 'GET' }, (res) => {
      const events: WatchEvent[] = [];
      const lines: string[] = [];
      let buf = '';
      let read = 0;
      let waiters: (() => void)[] = [];
      const wake = () => { const w = waiters; waiters = []; for (const f of w) f(); };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          lines.push(line);
          events.push(JSON.parse(line) as WatchEvent);
        }
        wake();
      });
      const ended = new Promise<'end' | 'error'>((done) => {
        res.on('end', () => { wake(); done('end'); });
        res.on('error', () => { wake(); done('error'); });
        res.on('aborted', () => { wake(); done('error'); });
        req.on('error', () => { wake(); done('error'); });
      });
      let finished = false;
      void ended.then(() => { finished = true; wake(); });
      const waitFor = async (n: number, timeoutMs = 5000): Promise<WatchEvent[]> => {
        const deadline = Date.now() + timeoutMs;
        while (events.length < n) {
          if (finished) throw new Error(`watch ended after ${events.length} events, wanted ${n}: ${lines.join('\n')}`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`timed out with ${events.length} events, wanted ${n}: ${lines.join('\n')}`);
          await new Promise<void>((r) => { const t = setTimeout(r, left); waiters.push(() => { clearTimeout(t); r(); }); });
        }
        return events.slice(0, n);
      };
      resolve({
        status: res.statusCode ?? 0, headers: res.headers, events, lines, ended,
        partial: () => buf,
        next: async (timeoutMs) => { await waitFor(read + 1, timeoutMs); return events[read++]; },
        waitFor,
        close: () => { req.destroy(); },
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export const PODS = { group: '', version: 'v1', resource: 'pods' };
export const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
export const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };

export function pod(name: string, opts: { namespace?: string; labels?: Record<string, string>; node?: string; phase?: string } = {}): SimObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: opts.namespace ?? 'default', ...(opts.labels ? { labels: opts.labels } : {}) },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...(opts.node ? { nodeName: opts.node } : {}) },
    status: { phase: opts.phase ?? 'Pending' },
  };
}

/**
 * Polls `cond` until it holds (or throws after `ms`). A condition read in process (it returns a boolean) is asked
 * every 10 ms. One that returns a promise usually asks something outside the test (a kubectl process, an HTTP
 * request): it is asked at 10 ms, then less and less often up to every 200 ms, so a long wait does not start a
 * process back to back and take the core the sim needs to get there.
 */
export async function until(cond: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  let pause = 10;
  for (;;) {
    const held = cond();
    if (typeof held === 'boolean' ? held : await held) return;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, pause));
    if (typeof held !== 'boolean') pause = Math.min(200, Math.ceil(pause * 1.5));
  }
}

/**
 * Waits until the quota controller has synced a ResourceQuota: status.hard is its spec.hard and status.used has an
 * entry for each name. kube's admission limits by status.hard and refuses writes while status.used lacks a name, so a
 * client (a user, a controller) waits for this after it creates or changes a quota, and so must a test.
 */
export async function quotaSynced(base: string, namespace: string, name: string, ms = 10_000): Promise<void> {
  await until(async () => {
    const q = (await http(base, `/api/v1/namespaces/${namespace}/resourcequotas/${name}`)).json;
    const hard = q?.spec?.hard ?? {};
    return JSON.stringify(q?.status?.hard ?? null) === JSON.stringify(hard) && Object.keys(hard).every((n) => q.status.used?.[n] !== undefined);
  }, ms);
}

/** The judge: real kubectl from PATH (KUBECTL overrides), as `.ci/run` makes sure it is installed. */
import { KUBECTL } from '../kubectl-lookup.js';

export { KUBECTL };

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
  /** When the command started and ended (epoch ms), to bound AGE columns. */
  t0: number;
  t1: number;
}

/** Runs `kubectl --kubeconfig <kubeconfig()> ARGS…` (the kubeconfig is read per call: tests write it in beforeAll). */
export function kubectlWith(kubeconfig: () => string): (...args: string[]) => Promise<KubectlResult> {
  return (...args) => {
    const t0 = Date.now();
    return new Promise((resolve) => {
      execFile(KUBECTL, ['--kubeconfig', kubeconfig(), ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr, t0, t1: Date.now() });
      });
    });
  };
}

/** A sim for a kubectl conformance file: its server, a temporary folder holding its kubeconfig, kubectl on it. */
export interface KubectlSim {
  /** The server (set by the time any test or later beforeAll runs). */
  readonly sim: SimServer;
  readonly dir: string;
  readonly kubeconfig: string;
  kubectl(...args: string[]): Promise<KubectlResult>;
  /** Writes `content` to `name` in the folder; returns its path (for `kubectl … -f`). */
  file(name: string, content: string | Buffer): string;
}

/** Starts the sim in a beforeAll and closes it in an afterAll of the calling test file. */
export function kubectlSim(options: SimServerOptions = {}, dirPrefix = 'kwatch-kubectl-'): KubectlSim {
  let sim: SimServer | undefined;
  let dir = '';
  let kubeconfig = '';
  beforeAll(async () => {
    sim = await startSimServer(options);
    dir = tempDir(dirPrefix);
    kubeconfig = join(dir, 'kubeconfig');
    await sim.writeKubeconfig(kubeconfig);
  });
  afterAll(() => sim?.close());
  return {
    get sim() {
      if (!sim) throw new Error('the sim starts in beforeAll');
      return sim;
    },
    get dir() {
      return dir;
    },
    get kubeconfig() {
      return kubeconfig;
    },
    kubectl: kubectlWith(() => kubeconfig),
    file(name, content) {
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    },
  };
}

/**
 * An ECDSA P-256 certificate request for CN=jane (made with `openssl req -new`), as a CertificateSigningRequest's
 * spec.request carries it after base64; the platform-kind tests (kubectl and plain HTTP) both submit it.
 */
export const CSR_PEM = `-----BEGIN CERTIFICATE REQUEST-----
MIHIMHECAQAwDzENMAsGA1UEAwwEamFuZTBZMBMGByqGSM49AgEGCCqGSM49AwEH
A0IABOtBPUioWCGhYarMV2OnaWKhQTJZvbKH2S4GnRUO8/q34AAslJsoYAEXV2ji
dHwYbzWlprxI31rMx1M0OCs55XWgADAKBggqhkjOPQQDAgNHADBEAiAyTw7vOD2Y
jvXtpvbTardgLufoYiqVG0DIhLfZguxAUwIgI1Wlxnz8K5WQt4s7OnTbctBnUAcZ
y1dYcr9h4gj2Wt0=
-----END CERTIFICATE REQUEST-----
`;
