// What "total" means for a stage, wherever kwatch shows one (the --live dashboard's pipeline row and the exit
// summary's TOTAL column): the items that entered the stage, not the trace records it wrote about them.

/**
 * How many items a record brings into its stage: its entry op, not its bookkeeping ops. An http request (not its
 * response), the objects a list page brought (watch events count in the watch stage), a fifo delta (not a pop), a
 * workqueue add, a reconcile start, a handler call; one per record in the other stages. Only the reflector's count
 * reads a field (`items` of a list page): every other stage's depends on the op alone.
 */
export function stageTotal(r: { stage: string; op: string; items?: unknown }): number {
  switch (r.stage) {
    case 'http':
      return r.op === 'request' ? 1 : 0;
    case 'reflector':
      return r.op === 'list-page' && typeof r.items === 'number' ? r.items : 0;
    case 'fifo':
      return r.op === 'pop' || r.op === 'requeue' ? 0 : 1;
    case 'workqueue':
      return r.op === 'add' || r.op === 'dedup' || r.op === 'add-after' || r.op === 'add-rate-limited' ? 1 : 0;
    case 'reconcile':
      return r.op === 'start' ? 1 : 0;
    case 'handler':
      return r.op === 'overflow' ? 0 : 1;
    default:
      return 1;
  }
}
