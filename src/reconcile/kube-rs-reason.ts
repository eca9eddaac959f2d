// kube-rs's name for each reconcile reason kwatch gives (kube-runtime controller/mod.rs, ReconcileReason's
// Display as of kube 0.9x–1.x), so that a trace reads in the words a kube-rs controller's logs use.
const KUBE_RS: Record<string, string> = {
  'object updated': 'object updated',
  // kube-rs's trigger_self enqueues deleted objects as ObjectUpdated too.
  'object deleted': 'object updated',
  initial: 'object updated',
  'related object updated': 'related object updated',
  'related object deleted': 'related object updated',
  'reconciler requested retry': 'reconciler requested retry',
  'error policy requested retry': 'error policy requested retry',
  // kube-rs always asks its error_policy; a thrown error's backoff stands in for it.
  'error backoff': 'error policy requested retry',
  // A resync re-runs every object: kube-rs's reconcile_all_on, BulkReconcile ("bulk reconcile requested").
  resync: 'bulk reconcile requested',
};

/** kube-rs's ReconcileReason text for one of kwatch's reasons; "unknown" (kube-rs's Unknown) for the rest. */
export function kubeRsReason(reason: string): string {
  return KUBE_RS[reason] ?? 'unknown';
}
