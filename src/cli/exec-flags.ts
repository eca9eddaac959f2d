// The flags of kwatch on the wire (`reconcile --exec`, `proxy`), defined once, and their parsing into the endpoint's
// options: listen address, TLS, faults, stall and settle times, the fork's bound, the child's output.
import { Flags } from '@oclif/core';
import type { ChildOutput } from '../endpoint/child-process.js';
import type { Tracer } from '../informer/trace.js';
import type { Connection } from '../kube/http/connection.js';
import { parseInjectSpec, type InjectFault } from '../faults/inject-spec.js';
import { parseDuration } from './duration.js';
import { UserError } from './user-error.js';

/** Flags the endpoint takes in both commands. */
export const endpointFlags = {
  listen: Flags.string({ description: 'Where the endpoint listens: PORT, HOST:PORT or [IPv6]:PORT (default 127.0.0.1 and a free port).', helpGroup: 'ENDPOINT' }),
  tls: Flags.boolean({ description: 'Serve HTTPS with a certificate from a CA made for this run (the default: the kubeconfig carries the CA, also written beside it as <kubeconfig>.ca.crt, and clients send its token). --no-tls serves plain HTTP, over which client-go sends no token: the server URL\'s secret path is then the only proof, and a client that drops that path (kubectl get --raw) is refused.', default: true, allowNo: true, helpGroup: 'ENDPOINT' }),
  inject: Flags.string({ description: 'A fault on the controller\'s watches or writes: drop-connection@AT, expire@AT (410 Gone), duplicate@AT, delay:DURATION[@AT], hide-delete:NAMESPACE/NAME, conflict@N, error@N, throttle@N (AT: a resourceVersion or a time since the start such as 5s; N: the Nth write). Repeatable.', multiple: true, helpGroup: 'ENDPOINT' }),
  'stall-after': Flags.string({ description: 'Report a watch that received no event and no bookmark for this long.', default: '5m', helpGroup: 'ENDPOINT' }),
  'max-objects': Flags.integer({ description: 'With --writes overlay: the most objects the local fork mirrors from the target; past it, the kind that crossed it stops mirroring (one line, never an out-of-memory).', default: 200_000, min: 1, helpGroup: 'ENDPOINT' }),
  'show-secrets': Flags.boolean({ description: 'Print Secret data in writes as it is (masked by default).', default: false }),
};

/** Flags only `reconcile --exec` takes (the child process and --once's settle). */
export const execChildFlags = {
  exec: Flags.boolean({ description: 'Run the controller given after -- (any language: Go, Rust, Python, Java, a script) behind kwatch: it gets KUBECONFIG on kwatch\'s endpoint ({kubeconfig} in its arguments is replaced by that path), and what it lists, watches and writes is traced; its writes go where --writes says.', default: false, helpGroup: 'ENDPOINT' }),
  'child-output': Flags.string({ description: 'The controller\'s stdout and stderr: prefix (each line after "NAME |", on kwatch\'s stderr), passthrough (as they are), file:PATH, none (under --live: none unless file:PATH; its last lines are in the report either way).', default: 'prefix', helpGroup: 'ENDPOINT' }),
  grace: Flags.string({ description: 'When stopping the controller: SIGTERM, then SIGKILL after this long.', default: '10s', helpGroup: 'ENDPOINT' }),
  quiet: Flags.string({ description: 'With --exec --once: settled once the controller has synced (a watch open, no list under way) and written nothing for this long.', default: '5s', helpGroup: 'ENDPOINT' }),
  'max-wait': Flags.string({ description: 'With --exec --once: stop after this long even if the controller never settles (under overlay and apply, a key written in the last 10 s is then pending); a controller that never opens a watch (one that polls) is judged only then.', default: '2m', helpGroup: 'ENDPOINT' }),
};

/** Flags of the module runner (its scheduler, workqueue and informers) that mean nothing to a controller process. */
const MODULE_ONLY_FLAGS = ['max-reconciles', 'settle-timeout', 'concurrency', 'max-concurrent-reconciles', 'debounce', 'resync', 'fifo', 'reconcile-timeout', 'max-events', 'field-manager', 'diff', 'key'];

/** `reconcile --exec`: kwatch's own arguments (those before --) may not hold a flag of the module runner. */
export function refuseModuleOnlyFlags(ownArgs: readonly string[]): void {
  const moduleOnly = MODULE_ONLY_FLAGS.find((f) => ownArgs.some((a) => a === `--${f}` || a.startsWith(`--${f}=`)));
  if (moduleOnly) throw new UserError(`--${moduleOnly} acts on the reconcile loop of a --with module; a controller process runs its own (leave it out with --exec)`);
}

/** Node's timers hold at most 2^31-1 ms (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function boundedDuration(text: string, flag: string, min = 0): number {
  const ms = parseDuration(text, flag);
  if (ms > MAX_TIMER_MS) throw new UserError(`invalid ${flag} "${text}": at most 24 days`);
  if (ms < min) throw new UserError(`invalid ${flag} "${text}": at least ${min} ms`);
  return ms;
}

export function parseListen(text: string | undefined): { host: string; port: number } {
  if (text === undefined) return { host: '127.0.0.1', port: 0 };
  const m = /^(?:\[([^\]]+)\]:|([^:]+):)?(\d+)$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) throw new UserError(`invalid --listen "${text}": use PORT, HOST:PORT or [IPv6]:PORT with a port from 0 to 65535`);
  return { host: m[1] ?? m[2] ?? '127.0.0.1', port };
}

export function parseInjectFlags(specs: readonly string[] | undefined): InjectFault[] {
  return (specs ?? []).map((s) => {
    try { return parseInjectSpec(s); } catch (err) { throw new UserError((err as Error).message); }
  });
}

export function parseChildOutput(text: string): ChildOutput {
  if (text === 'prefix' || text === 'passthrough' || text === 'none') return { kind: text };
  if (text.startsWith('file:') && text.length > 5) return { kind: 'file', path: text.slice(5) };
  throw new UserError(`invalid --child-output "${text}": use prefix, passthrough, file:PATH or none`);
}

/** What `reconcile --exec` and `proxy` both give the endpoint, from the flags they share and the target connection. */
export function endpointRunOptions(
  flags: { sim: boolean; namespace?: string; listen?: string; tls: boolean; inject?: string[]; 'stall-after': string; 'max-objects': number; 'show-secrets': boolean },
  upstream: Connection,
  tracer: Tracer,
) {
  return {
    upstream,
    targetName: flags.sim ? 'the embedded --sim server' : `context "${upstream.contextName ?? '(none)'}" at ${upstream.server}`,
    namespace: flags.namespace ?? upstream.namespace,
    tracer,
    showSecrets: flags['show-secrets'],
    listen: parseListen(flags.listen),
    tls: flags.tls,
    faults: parseInjectFlags(flags.inject),
    stallAfterMs: boundedDuration(flags['stall-after'], '--stall-after', 1),
    maxObjects: flags['max-objects'],
  };
}
