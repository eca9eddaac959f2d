// kwatch sim: serve the embedded Kubernetes API server until SIGINT/SIGTERM, for kubectl and kwatch.
import { Command, Flags } from '@oclif/core';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describeError } from '../cli/error-message.js';
import { isParseError, parseErrorMessage, type OclifParseError } from '../cli/parse-error.js';
import { DEFAULT_SIM_CHURN, MAX_SIM_CHURN, MAX_SIM_NODES, MAX_SIM_PODS, numberInRange, rangedInteger } from '../cli/flags.js';
import { MAX_TIMER_MS } from '../informer/duration.js';
import { startTraceOut, traceOutFlags } from '../cli/trace-out.js';
import { DEFAULT_KUBE_VERSION, KUBE_VERSIONS, parseFeatureGates, type KubeVersion } from '../sim/kube-version.js';

/** The longest period in seconds a timer takes (Node's range). */
const MAX_TIMER_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

export default class Sim extends Command {
  static override summary = 'Run the embedded Kubernetes API server (a simulated cluster) for kubectl and kwatch.';
  static override description = `Serves the Kubernetes REST API over HTTP on 127.0.0.1 (HTTPS with --tls, with a client-certificate admin and a namespace-scoped token user with --users, authorized by kube's RBAC over the stored roles; kubectl auth can-i, auth whoami and create token are answered, and service account tokens accepted) until interrupted: discovery (legacy and aggregated), get/list/watch/create/update/patch/delete, paging, bookmarks, watch-list, a bounded history with compaction, a deterministic workload with churn, and fault injection (see the control endpoint in docs/sim.md). Behind the API run stand-ins for the controllers a cluster has (turn them off with --no-controllers): Deployments get ReplicaSets and pods, pods are scheduled onto the nodes and start running, deleted pods terminate gracefully (the grace period shortened by --grace-scale: 30 s of grace take 1.5 s by default), finalizers hold objects, and owners' deletion cascades to their dependents (background, foreground or orphan). Claims bind to matching PersistentVolumes, the default StorageClass "standard" (provisioner kwatch.dev/sim) provisions volumes, and ResourceQuotas are enforced. The generated workload's own objects are driven by the generator, not by these controllers. Stored only, with no controller behind them: HorizontalPodAutoscalers (no metrics, nothing is scaled), NetworkPolicies (no traffic is filtered), webhook configurations and admission policies (no webhook is called, no CEL evaluated), CertificateSigningRequests (approve and deny work; nothing is signed), flow control, and CSIDrivers, CSINodes, VolumeAttachments and CSIStorageCapacities (nothing is attached). It writes a kubeconfig that kubectl and kwatch accept as is, once the server accepts connections (mode 0600), and beside it the control endpoint's token for this run (<kubeconfig>.control-token; send it as "Authorization: Bearer TOKEN" to /_kwatch/…).`;
  static override examples = [
    '<%= config.bin %> sim --port 0 --kubeconfig-out /tmp/sim.kubeconfig',
    '<%= config.bin %> sim --pods 10000 --nodes 50 --churn 20 --seed 7',
    '<%= config.bin %> sim --tls --users --kubeconfig-out /tmp/sim.kubeconfig   # then: kubectl --context kwatch-sim-dev get pods',
    'KUBECONFIG=/tmp/sim.kubeconfig kubectl get pods -A',
  ];
  static override flags = {
    port: rangedInteger(0, 65_535, { description: 'Port to listen on (0 picks a free port).', default: 0 }),
    // Not cached in oclif.manifest.json (noCacheDefault): the temporary folder differs per machine, the manifest must not.
    'kubeconfig-out': Flags.string({ description: 'Where to write the kubeconfig for this server (default: kwatch-sim/kubeconfig in the temporary folder, $TMPDIR or /tmp).', default: join(tmpdir(), 'kwatch-sim', 'kubeconfig'), noCacheDefault: true }),
    seed: Flags.integer({ description: 'Seed for the deterministic workload.', default: 1 }),
    nodes: rangedInteger(0, MAX_SIM_NODES, { description: `Number of nodes to generate (0 to ${MAX_SIM_NODES}).`, default: 3 }),
    pods: rangedInteger(0, MAX_SIM_PODS, { description: `Number of pods to generate (0 to ${MAX_SIM_PODS}).`, default: 30 }),
    churn: Flags.string({ description: `Creates, updates and deletes per second, from the first watch a client opens (0 = a static cluster; up to ${MAX_SIM_CHURN}, what the sim generates and still answers in milliseconds; the same default as --sim-churn).`, default: String(DEFAULT_SIM_CHURN) }),
    'history-events': rangedInteger(1, 1_000_000, { description: 'Events kept in the watch history (older resourceVersions answer 410 Expired; 1 to 1000000).', default: 10_000 }),
    'history-age': rangedInteger(1, MAX_TIMER_SECONDS, { description: 'Seconds of watch history kept (1 or more).', default: 300 }),
    'bookmark-interval': rangedInteger(1, MAX_TIMER_SECONDS, { description: 'Seconds between BOOKMARK events on watches that allow them (1 or more).', default: 60 }),
    'no-managed-fields': Flags.boolean({ description: 'Generate objects without metadata.managedFields.', default: false }),
    controllers: Flags.boolean({ description: 'Run the deployment, replicaset, scheduler, kubelet and garbage-collector stand-ins, graceful pod deletion and finalizers (on unless --no-controllers).', default: true, allowNo: true }),
    tls: Flags.boolean({ description: 'Serve HTTPS with a certificate from a CA made for this run; the kubeconfig carries the CA (no insecure-skip-tls-verify).', default: false }),
    users: Flags.boolean({ description: 'Authenticate and authorize (needs --tls): context kwatch-sim is an admin with a client certificate, context kwatch-sim-dev a user "dev" with a bearer token allowed only in namespace dev (403 elsewhere, 401 for a bad token).', default: false }),
    'max-objects': rangedInteger(0, 1_000_000, { description: 'Objects each controller (deployment, replicaset, job) may create over the sim\'s lifetime; past it, it logs one line and creates no more, so a mistake cannot flood the machine.', default: 10_000 }),
    objects: Flags.string({ description: 'Objects created in the server before it serves (a YAML or JSON file, several documents or a List, or a folder of them); repeatable.', multiple: true }),
    mirror: Flags.boolean({ description: 'Serve a local copy-on-write fork of a real cluster (the current context, or --kubeconfig/--context) instead of a generated one: each kind is mirrored from the cluster at its first request and kept current; writes land only in the fork; an upstream change to an object written locally is reported as a conflict and never applied over it. At exit it lists the objects that diverged.', default: false, helpGroup: 'MIRROR' }),
    'mirror-resources': Flags.string({ description: 'With --mirror: mirror only these kinds, comma-separated as kubectl spells them (pods,deployments.apps); others are served empty, holding only what is written locally.', helpGroup: 'MIRROR' }),
    kubeconfig: Flags.string({ description: 'With --mirror: the kubeconfig of the cluster to fork (default: $KUBECONFIG, then ~/.kube/config).', helpGroup: 'MIRROR' }),
    context: Flags.string({ description: 'With --mirror: the kubeconfig context to fork (default: the current one).', helpGroup: 'MIRROR' }),
    wait: Flags.boolean({ description: 'Start no server: wait (up to 60 s) until the sim writing --kubeconfig-out answers, then exit 0. For scripts: `kwatch sim --kubeconfig-out F &` then `kwatch sim --wait --kubeconfig-out F`, and F is ready to use.', default: false }),
    force: Flags.boolean({ description: 'Replace the file at --kubeconfig-out even when it is not a kubeconfig kwatch sim wrote (by default such a file is left untouched and the sim does not start).', default: false }),
    ...traceOutFlags,
    'grace-scale': Flags.string({ description: 'Real seconds per second of a pod\'s termination grace period (0.05: a 30 s grace period ends after 1.5 s; 1: real time).', default: '0.05' }),
    'kube-version': Flags.string({ description: `The Kubernetes release to serve: /version, the kinds it adds, its feature-gate defaults (WatchList is off by default in 1.33 only). One of ${KUBE_VERSIONS.join(', ')}.`, options: [...KUBE_VERSIONS], default: DEFAULT_KUBE_VERSION }),
    fault: Flags.string({ description: 'Faults from the start, comma-separated (the control endpoint changes them later): drop-watches-every=5s|100events, fail=CODE[xCOUNT][@VERB[:PATH]], delay=200ms[@VERB], cut-watch=1, drop-initial-events-end (watch-lists never get their k8s.io/initial-events-end bookmark, as behind a proxy that drops it).' }),
    'feature-gates': Flags.string({ description: 'Feature gates over the release\'s defaults, as kube-apiserver takes them: NAME=true|false,… (WatchList, CBORServingAndStorage).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Sim);
    if (flags.mirror && flags.objects?.length) this.fail('--objects seeds a generated sim; --mirror serves a copy of a real cluster: give one of them');
    if (flags.mirror) return this.runMirror(flags);
    if (flags['trace-out'] !== undefined) this.fail('--trace-out traces what controllers do on a --mirror fork: add --mirror');
    if (flags['mirror-resources'] !== undefined || flags.context !== undefined || flags.kubeconfig !== undefined) this.fail('--mirror-resources, --kubeconfig and --context name the cluster --mirror forks: add --mirror');
    const churn = numberInRange(flags.churn, '--churn', 0, MAX_SIM_CHURN, 'changes per second; 0 = static');
    if (flags.pods > 0 && flags.nodes === 0) this.fail('--pods needs at least one node to schedule onto: set --nodes');
    const graceScale = Number(flags['grace-scale']);
    if (!Number.isFinite(graceScale) || graceScale < 0) this.fail(`invalid --grace-scale "${flags['grace-scale']}": use a non-negative number (0.05 makes 30 s of grace take 1.5 s)`);
    if (flags.users && !flags.tls) this.fail('--users needs --tls: the admin user authenticates with a client certificate');
    const kubeVersion = flags['kube-version'] as KubeVersion;
    let featureGates;
    try {
      featureGates = parseFeatureGates(flags['feature-gates'] ?? '', kubeVersion);
    } catch (err) {
      this.fail(`invalid --feature-gates: ${(err as Error).message}`);
    }

    let faults;
    if (flags.fault !== undefined) {
      const { parseFaultSpec } = await import('../sim/faults.js');
      try {
        faults = parseFaultSpec(flags.fault);
      } catch (err) {
        this.fail(`invalid --fault: ${(err as Error).message}`);
      }
    }

    const kubeconfigPath = resolve(flags['kubeconfig-out']);
    if (flags.wait) {
      const { SimWaitError, waitForSim } = await import('../sim/wait-ready.js');
      try {
        this.log(`kwatch sim at ${await waitForSim(kubeconfigPath, 60_000)} is ready (${kubeconfigPath})`);
      } catch (err) {
        if (err instanceof SimWaitError) this.fail(err.message);
        throw err;
      }
      return;
    }
    const { controlTokenFile, isControlTokenFile, isSimKubeconfig } = await import('../sim/kubeconfig.js');
    if (!flags.force) {
      // Before the server starts: the user's own kubeconfig (or notes) at that path stays untouched.
      const { refuseForeignFile } = await import('../kube/recording/own-file.js');
      refuseForeignFile(kubeconfigPath, isSimKubeconfig, 'kubeconfig');
      refuseForeignFile(controlTokenFile(kubeconfigPath), isControlTokenFile, 'control token file');
    }

    const seeds = flags.objects?.length ? await import('../cli/seed-objects.js') : undefined;
    const objects = seeds?.readSeedObjects(flags.objects!, '--objects');
    const { startSimServer } = await import('../sim/server.js');
    let server;
    try {
      server = await startSimServer({
        port: flags.port,
        seed: flags.seed,
        nodes: flags.nodes,
        pods: flags.pods,
        churn,
        historyEvents: flags['history-events'],
        historyMs: flags['history-age'] * 1000,
        bookmarkIntervalMs: flags['bookmark-interval'] * 1000,
        managedFields: !flags['no-managed-fields'],
        controllers: flags.controllers ? { graceScale } : false,
        maxObjects: flags['max-objects'],
        tls: flags.tls,
        users: flags.users,
        kubeVersion,
        featureGates,
        faults,
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EADDRINUSE') this.fail(`port ${flags.port} is already in use: pick another --port or use --port 0`);
      throw err;
    }
    if (seeds && objects) {
      try {
        seeds.seedSim(server, objects, '--objects');
      } catch (err) {
        await server.close();
        throw err;
      }
    }
    const { PrivateFileError } = await import('../wire/private-file.js');
    try {
      mkdirSync(dirname(kubeconfigPath), { recursive: true, mode: 0o700 });
      await server.writeKubeconfig(kubeconfigPath);
    } catch (err) {
      await server.close();
      if (err instanceof PrivateFileError) this.fail(`cannot write the kubeconfig: ${err.message} (--kubeconfig-out)`);
      throw err;
    }

    // Listening for the stop before the banner: a script that sends SIGTERM as soon as it reads the banner must find
    // the handler there, not Node's default (which ends the process without closing the server).
    const stopped = new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    this.log(`kwatch sim serving the Kubernetes API at ${server.url}`);
    this.log(`kubeconfig written to ${kubeconfigPath}`);
    this.log(`  export KUBECONFIG=${kubeconfigPath}`);
    this.log(`  kubectl get pods -A        kubectl kwatch events pods -A`);
    if (flags.users) this.log(`users: admin (context kwatch-sim, client certificate), dev (context kwatch-sim-dev, token; namespace dev only)`);
    this.log(`control endpoint token (for ${server.url}/_kwatch/…) written to ${controlTokenFile(kubeconfigPath)}`);
    this.log(`Kubernetes v${kubeVersion} (--kube-version); feature gates: ${Object.entries(featureGates ?? {}).map(([k, v]) => `${k}=${v}`).join(',')}`);
    this.log(`workload: seed ${flags.seed}, ${flags.nodes} nodes, ${flags.pods} pods, churn ${churn}/s; controllers ${flags.controllers ? `on (grace ×${graceScale})` : 'off'}; Ctrl-C to stop`);

    await stopped;
    await server.close();
    this.log('kwatch sim stopped');
  }

  /** `sim --mirror`: kwatch's endpoint in overlay mode on the current context, no child, until Ctrl-C. */
  private async runMirror(flags: { 'kubeconfig-out': string; 'mirror-resources'?: string; kubeconfig?: string; context?: string; port: number; tls: boolean; force: boolean; 'trace-out'?: string; 'trace-format'?: string }): Promise<void> {
    const { loadConnection } = await import('../kube/http/connection.js');
    const { Tracer } = await import('../informer/trace.js');
    const { createStopSignal } = await import('../cli/stop-signal.js');
    const { runExec } = await import('../cli/exec-run.js');
    const tracer = new Tracer();
    const traceOut: (() => Promise<void>)[] = [];
    await startTraceOut(flags, tracer, 'sim --mirror', (fn) => traceOut.push(fn));
    const upstream = await loadConnection({ kubeconfig: flags.kubeconfig, context: flags.context, tracer });
    const kubeconfigPath = resolve(flags['kubeconfig-out']);
    mkdirSync(dirname(kubeconfigPath), { recursive: true, mode: 0o700 });
    const stop = createStopSignal();
    try {
      const code = await runExec({
        upstream,
        targetName: `context "${upstream.contextName ?? '(none)'}" at ${upstream.server}`,
        namespace: upstream.namespace,
        mode: 'overlay',
        tracer,
        output: 'table',
        showSecrets: false,
        listen: { host: '127.0.0.1', port: flags.port },
        tls: flags.tls,
        faults: [],
        loopThreshold: 5,
        stallAfterMs: 300_000,
        maxObjects: 200_000,
        mirrorServer: true,
        mirrorResources: flags['mirror-resources'] ? new Set(flags['mirror-resources'].split(',').map((r) => r.trim()).filter(Boolean)) : undefined,
        kubeconfigOut: kubeconfigPath,
        force: flags.force,
        stop,
      });
      if (code !== 0) this.exit(code);
    } finally {
      stop.dispose();
      await upstream.close();
      for (const write of traceOut) await write();
    }
  }

  private fail(message: string): never {
    process.stderr.write(`error: ${message}\n`);
    this.exit(1);
  }

  protected override async catch(err: Error): Promise<any> {
    if ((err as { code?: string }).code === 'EEXIT') throw err;
    if (isParseError(err)) {
      process.stderr.write(`error: ${parseErrorMessage(err as OclifParseError, { bin: this.config.bin, id: this.id ?? 'sim', flagNames: Object.keys(Sim.flags) })}\n`);
      this.exit(1);
    }
    process.stderr.write(`error: ${describeError(err).message}\n`);
    this.exit(1);
  }
}
