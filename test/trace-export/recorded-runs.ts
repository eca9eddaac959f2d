// Traces of real reconcile runs, recorded in process: a session over fake API resources whose writes are stored on
// the fake server and come back on its watch, as `kwatch reconcile --writes apply` records them.
import { StatusError } from '../../src/informer/errors.js';
import { Tracer } from '../../src/informer/trace.js';
import type { KubeObject } from '../../src/informer/types.js';
import type { ControllerDefinition } from '../../src/reconcile/types.js';
import type { ObjectWriter, WriteRequest } from '../../src/reconcile/writer.js';
import { applyPatch } from '../../src/reconcile/patch.js';
import { isWrite, TraceCollector, type TraceRow } from '../../src/trace-export/trace-rows.js';
import { DEPLOYMENTS, MemoryCatalog, deployment, eventually, startSession } from '../reconcile/helpers.js';

/**
 * A writer that stores each write on the fake server (its watch then delivers the write's echo), refusing with 409
 * Conflict an update from an older resourceVersion, as the API server does.
 */
function storingWriter(catalog: MemoryCatalog): ObjectWriter {
  const server = catalog.lw(DEPLOYMENTS);
  return {
    async write(req: WriteRequest) {
      const cur = server.get(`${req.namespace}/${req.name}`)!;
      if (req.verb !== 'update') return server.apply(applyPatch(cur, req.body, 'merge'));
      const body = req.body as KubeObject;
      if (body.metadata.resourceVersion !== cur.metadata.resourceVersion) {
        const message = `Operation cannot be fulfilled on deployments.apps "${req.name}": the object has been modified; please apply your changes to the latest version and try again`;
        throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict', message });
      }
      return server.apply(body);
    },
  };
}

/**
 * Runs controllers over deployments until `done` says so and the session is idle, and returns the run's trace as
 * --trace-out keeps it. `objects` are on the server before the run (the initial list). `answerAfterEcho`: the
 * server answers each write only once the informer received its watch event (the race of a fast watch).
 */
export async function recordRun(controllers: Record<string, ControllerDefinition['reconcile']>, done: (rows: TraceRow[]) => boolean, o: { objects?: KubeObject[]; answerAfterEcho?: boolean } = {}): Promise<TraceRow[]> {
  const catalog = new MemoryCatalog([DEPLOYMENTS]);
  for (const obj of o.objects ?? [deployment('ns', 'web')]) catalog.lw(DEPLOYMENTS).apply(obj);
  const tracer = new Tracer();
  const collector = new TraceCollector(tracer);
  const store = storingWriter(catalog);
  const writer: ObjectWriter = !o.answerAfterEcho ? store : {
    async write(req) {
      const stored = await store.write(req);
      await eventually(() => collector.rows.some((r) => r.stage === 'watch' && r.rv === stored?.metadata?.resourceVersion), 'the write\'s watch event');
      return stored;
    },
  };
  const h = await startSession({
    catalog, mode: 'apply', writer, tracer, loopThreshold: 1000,
    controllers: Object.entries(controllers).map(([name, reconcile]) => ({ name, definition: { for: 'deployments.apps', reconcile } })),
  });
  await eventually(() => done(collector.rows) && h.session.isIdle(), 'the run to reach its end');
  await h.stop();
  return collector.stop();
}

/** Done once the run made `writes` writes and ended `runs` reconciles. */
export function writesDone(writes: number, runs: number): (rows: TraceRow[]) => boolean {
  return (rows) => rows.filter(isWrite).length >= writes && rows.filter((r) => r.stage === 'reconcile' && r.op === 'success').length >= runs;
}

/** A stamper: each run writes a new stamp (once `needs` is annotated), so its write's echo starts the next run, `rounds` times. */
export function stamper(rounds: number, needs?: string): ControllerDefinition['reconcile'] {
  let n = 0;
  return async (req, ctx) => {
    const d = await ctx.get('deployments.apps', req);
    if (d && n < rounds && (needs === undefined || d.metadata.annotations?.[needs])) await ctx.patch(d, { metadata: { annotations: { stamp: String(++n) } } });
  };
}

/** Sets an annotation once, when it is missing (a claim). */
export function annotate(name: string): ControllerDefinition['reconcile'] {
  return async (req, ctx) => {
    const d = await ctx.get('deployments.apps', req);
    if (d && !d.metadata.annotations?.[name]) await ctx.patch(d, { metadata: { annotations: { [name]: 'yes' } } });
  };
}

/** Claims the object (annotation owner) whenever another owns it, `rounds` times: two of them fight. */
export function fighter(name: string, rounds: number): ControllerDefinition['reconcile'] {
  let n = 0;
  return async (req, ctx) => {
    const d = await ctx.get('deployments.apps', req);
    if (d && n < rounds && d.metadata.annotations?.owner !== name) {
      n++;
      await ctx.patch(d, { metadata: { annotations: { owner: name } } });
    }
  };
}
