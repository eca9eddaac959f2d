// kwatch sim: serve the embedded Kubernetes API server until SIGINT/SIGTERM, for kubectl and kwatch.
import { Command, Flags } from '@oclif/core';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describeError } from '../cli/error-message.js';

export default class Sim extends Command {
  static override summary = 'Run the embedded Kubernetes API server (a simulated cluster) for kubectl and kwatch.';
  static override description = `Serves the Kubernetes REST API over HTTP on 127.0.0.1 until interrupted: discovery (legacy and aggregated), get/list/watch/create/update/patch/delete, paging, bookmarks, watch-list, a bounded history with compaction, a deterministic workload with churn, and fault injection (see the control endpoint in the README). It writes a kubeconfig that kubectl and kwatch accept as is, once the server accepts connections.`;
  static override examples = [
    '<%= config.bin %> sim --port 0 --kubeconfig-out /tmp/sim.kubeconfig',
    '<%= config.bin %> sim --pods 10000 --nodes 50 --churn 20 --seed 7',
    'KUBECONFIG=/tmp/sim.kubeconfig kubectl get pods -A',
  ];
  static override flags = {
    port: Flags.integer({ description: 'Port to listen on (0 picks a free port).', default: 0 }),
    'kubeconfig-out': Flags.string({ description: 'Where to write the kubeconfig for this server.', default: join(tmpdir(), 'kwatch-sim', 'kubeconfig') }),
    seed: Flags.integer({ description: 'Seed for the deterministic workload.', default: 1 }),
    nodes: Flags.integer({ description: 'Number of nodes to generate.', default: 3 }),
    pods: Flags.integer({ description: 'Number of pods to generate (up to 100k).', default: 30 }),
    churn: Flags.string({ description: 'Creates, updates and deletes per second (0 = a static cluster).', default: '1' }),
    'history-events': Flags.integer({ description: 'Events kept in the watch history (older resourceVersions answer 410 Expired).', default: 10_000 }),
    'history-age': Flags.integer({ description: 'Seconds of watch history kept.', default: 300 }),
    'bookmark-interval': Flags.integer({ description: 'Seconds between BOOKMARK events on watches that allow them.', default: 60 }),
    'no-managed-fields': Flags.boolean({ description: 'Generate objects without metadata.managedFields.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Sim);
    const churn = Number(flags.churn);
    if (!Number.isFinite(churn) || churn < 0) this.fail(`invalid --churn "${flags.churn}": use a number of changes per second (0 = static)`);
    if (flags.pods < 0 || flags.nodes < 0) this.fail('--pods and --nodes must not be negative');
    if (flags.pods > 0 && flags.nodes === 0) this.fail('--pods needs at least one node to schedule onto: set --nodes');

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
      });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EADDRINUSE') this.fail(`port ${flags.port} is already in use: pick another --port or use --port 0`);
      throw err;
    }
    const kubeconfigPath = resolve(flags['kubeconfig-out']);
    mkdirSync(dirname(kubeconfigPath), { recursive: true });
    await server.writeKubeconfig(kubeconfigPath);

    this.log(`kwatch sim serving the Kubernetes API at ${server.url}`);
    this.log(`kubeconfig written to ${kubeconfigPath}`);
    this.log(`  export KUBECONFIG=${kubeconfigPath}`);
    this.log(`  kubectl get pods -A        kubectl kwatch events pods -A`);
    this.log(`workload: seed ${flags.seed}, ${flags.nodes} nodes, ${flags.pods} pods, churn ${churn}/s; Ctrl-C to stop`);

    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await server.close();
    this.log('kwatch sim stopped');
  }

  private fail(message: string): never {
    process.stderr.write(`error: ${message}\n`);
    this.exit(1);
  }

  protected override async catch(err: Error): Promise<any> {
    if ((err as { code?: string }).code === 'EEXIT') throw err;
    process.stderr.write(`error: ${describeError(err).message}\n`);
    this.exit(1);
  }
}
