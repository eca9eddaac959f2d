// The base of every kwatch command: global flags, the connection (kubeconfig or --sim), and error
// reporting as one clear line with a non-zero exit code.
import { Errors } from '@oclif/core';
import { CommandLineArgsCommand } from './args-without-stdin.js';
import type { Connection } from '../kube/http/connection.js';
import type { DiscoveryStore } from '../kube/discovery/discovery-store.js';
import { DEFAULT_FIRST_CONTACT_MS, type FirstContactOptions } from '../kube/http/first-contact.js';
import { Tracer } from '../informer/trace.js';
import { describeError, retryLine } from './error-message.js';
import { parseByteSize } from './byte-size.js';
import { parseDuration } from './duration.js';
import { isParseError, parseErrorMessage, type OclifParseError } from './parse-error.js';
import { requestLog } from './request-log.js';
import { globalFlags, MAX_SIM_CHURN, numberInRange, type GlobalFlags } from './flags.js';
import { UserError } from './user-error.js';
import { DEFAULT_KUBE_VERSION, isKubeVersion, parseFeatureGates, type FeatureGates, type KubeVersion } from '../sim/kube-version.js';

interface RunningSim {
  url: string;
  close(): Promise<void>;
}

/** Arguments come from the command line only (args-without-stdin.ts). */
export abstract class KwatchCommand extends CommandLineArgsCommand {
  static override baseFlags = globalFlags;

  private cleanups: (() => Promise<void>)[] = [];
  /** Verbosity from -v, available to error reporting. */
  protected verbosity = 0;
  /** Whether the command reads a namespaced resource across every namespace (error reporting hints at -n). */
  private acrossNamespaces = false;
  /** --request-timeout, as connect() parsed it (0 = none). */
  private requestTimeoutMs = 0;

  /** Commands tell which namespace they read, so that a cluster-scope 403 can suggest -n. */
  protected noteTarget(target: { namespaced: boolean; namespace?: string }): void {
    if (target.namespaced && target.namespace === undefined) this.acrossNamespaces = true;
  }

  /** Registers work to run when the command ends, however it ends (last registered runs first). */
  protected onCleanup(fn: () => Promise<void>): void {
    this.cleanups.unshift(fn);
  }

  /**
   * Connects to the cluster the flags name: an in-process simulated cluster with --sim, otherwise
   * the kubeconfig (KUBECONFIG with several files honoured; --context/--cluster/--user overrides).
   */
  protected async connect(flags: GlobalFlags, opts: { tracer?: Tracer } = {}): Promise<Connection> {
    const tracer = opts.tracer ?? new Tracer();
    // Checked before anything starts: a bad flag is one line, with or without --sim.
    const settings = this.connectionSettings(flags);
    simRelease(flags);
    if (flags.sim) return this.connectLocal((await this.startSim(flags)).url, flags, tracer, settings);
    const kube = await import('../kube/http/connection.js');
    const conn = await kube.loadConnection({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      cluster: flags.cluster,
      user: flags.user,
      namespace: flags.namespace,
      ...settings,
      tracer,
    });
    this.onCleanup(() => conn.close());
    return conn;
  }

  /**
   * The first-contact policy as the flags set it: retried until --request-timeout (30s when unset), each
   * retry one line on stderr. Call after connect().
   */
  protected firstContactOptions(): FirstContactOptions {
    return {
      deadlineMs: this.requestTimeoutMs > 0 ? this.requestTimeoutMs : DEFAULT_FIRST_CONTACT_MS,
      onRetry: ({ what, error, delayMs }) => process.stderr.write(`${retryLine(what, error, delayMs)}\n`),
    };
  }

  /** What every connection takes from the global flags (-v, --request-timeout, --max-object-size), whatever its server. */
  private connectionSettings(flags: GlobalFlags) {
    this.verbosity = flags.v ?? 0;
    this.requestTimeoutMs = parseDuration(flags['request-timeout'] ?? '0', '--request-timeout');
    return { requestTimeoutMs: this.requestTimeoutMs, maxObjectBytes: parseByteSize(flags['max-object-size'] ?? '64Mi', '--max-object-size'), wireLog: requestLog(this.verbosity) };
  }

  /**
   * A connection to an API server kwatch runs in-process (--sim, a recording served as a cluster). Each listens on a
   * new port, so its discovery cache could never be reused: it lives where localDiscoveryStore says (in memory) rather
   * than in a new ~/.kube/cache/discovery/127.0.0.1_<port> every run. --cache-dir still puts it on disk.
   */
  protected async connectLocal(url: string, flags: GlobalFlags, tracer: Tracer, settings = this.connectionSettings(flags)): Promise<Connection> {
    const kube = await import('../kube/http/connection.js');
    const discoveryStore = await this.localDiscoveryStore();
    const conn = kube.connectionFromUrl(url, { namespace: flags.namespace ?? 'default', tracer, discoveryStore, ...settings });
    this.onCleanup(() => conn.close());
    return conn;
  }

  /**
   * Where the discovery cache of an in-process server lives: in memory, for this run (the same reads, writes, ages and
   * invalidations as on disk; nothing written). `kwatch discovery` shows the cache's files, so it keeps them on disk.
   */
  protected async localDiscoveryStore(): Promise<DiscoveryStore> {
    const { MemoryDiscoveryStore } = await import('../kube/discovery/discovery-store.js');
    return new MemoryDiscoveryStore();
  }

  /** A disk store in a temporary folder, removed when the command ends. */
  protected async temporaryDiscoveryStore(): Promise<DiscoveryStore> {
    const { DiskDiscoveryStore } = await import('../kube/discovery/discovery-store.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'kwatch-sim-cache-'));
    this.onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
    return new DiskDiscoveryStore(dir);
  }

  /** Starts the embedded API server in-process (loaded lazily: plain commands never pay for it). */
  protected async startSim(flags: GlobalFlags & { 'sim-objects'?: string[] }): Promise<RunningSim> {
    const { startSimServer } = await import('../sim/server.js');
    const churn = numberInRange(flags['sim-churn'], '--sim-churn', 0, MAX_SIM_CHURN, 'changes per second; 0 = static');
    // --sim-objects (the commands that take it): read before the server starts, so a bad file is one line.
    const seedFiles = flags['sim-objects'] ?? [];
    const seeds = seedFiles.length ? await import('./seed-objects.js') : undefined;
    const objects = seeds?.readSeedObjects(seedFiles, '--sim-objects');
    const { kubeVersion, featureGates } = simRelease(flags);
    const sim = await startSimServer({ port: 0, seed: flags['sim-seed'], nodes: flags['sim-nodes'], pods: flags['sim-pods'], churn, kubeVersion, featureGates });
    this.onCleanup(() => sim.close());
    if (seeds && objects) seeds.seedSim(sim, objects, '--sim-objects');
    if (flags.v > 0) process.stderr.write(`kwatch: embedded API server at ${sim.url}\n`);
    // For tests only: a client that reaches its sim this much later, as on a loaded machine (what a seeded run shows
    // must not depend on it: test/docs/readme-slow-start.test.ts).
    const delayMs = Number(process.env.KWATCH_TEST_SIM_CONNECT_DELAY_MS ?? 0);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return sim;
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<any> {
    // oclif's own control flow (exit, help) passes through untouched.
    if (err instanceof Errors.ExitError || (err as { code?: string }).code === 'EEXIT') throw err;
    if (isParseError(err)) {
      const flagNames = Object.keys({ ...this.ctor.baseFlags, ...this.ctor.flags });
      process.stderr.write(`error: ${parseErrorMessage(err as OclifParseError, { bin: this.config.bin, id: this.id ?? '', flagNames })}\n`);
      this.exit(1);
    }
    const report = describeError(err, { acrossNamespaces: this.acrossNamespaces });
    process.stderr.write(`error: ${report.message}\n`);
    if (report.bug && this.verbosity >= 6 && err.stack) process.stderr.write(`${err.stack}\n`);
    this.exit(report.exitCode);
  }

  protected override async finally(err: Error | undefined): Promise<any> {
    for (const fn of this.cleanups.splice(0)) {
      try {
        await fn();
      } catch {
        // cleanup failures must not hide the command's own result
      }
    }
    return super.finally(err);
  }
}

/**
 * The release and gates a --sim command's embedded server serves (--kube-version, --feature-gates, as `kwatch sim`
 * takes them). Given without --sim they are a one-line error: they cannot change what a real cluster serves.
 */
export function simRelease(flags: Pick<GlobalFlags, 'sim' | 'kube-version' | 'feature-gates'>): { kubeVersion: KubeVersion; featureGates: FeatureGates } {
  const version = flags['kube-version'] ?? DEFAULT_KUBE_VERSION;
  if (!flags.sim && (flags['kube-version'] !== undefined || flags['feature-gates'] !== undefined)) {
    throw new UserError(`${flags['kube-version'] !== undefined ? '--kube-version' : '--feature-gates'} sets what the embedded server serves: add --sim`);
  }
  // oclif's `options` already refuses other values; this guards callers that build flags by hand.
  if (!isKubeVersion(version)) throw new UserError(`invalid --kube-version "${version}"`);
  try {
    return { kubeVersion: version, featureGates: parseFeatureGates(flags['feature-gates'] ?? '', version) };
  } catch (err) {
    throw new UserError(`invalid --feature-gates: ${(err as Error).message}`);
  }
}
