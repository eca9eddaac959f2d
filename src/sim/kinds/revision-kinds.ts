// apps/v1 ControllerRevision, the history the StatefulSet and DaemonSet controllers keep (one per distinct pod
// template), with kube-apiserver 1.32's discovery values: namespaced, every verb, no short names, no subresources.
import type { ResourceType } from '../registry.js';

// registry.ts's ALL_VERBS (not imported: registry.ts imports this file).
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function revisionResourceTypes(): ResourceType[] {
  return [{
    group: 'apps', version: 'v1', resource: 'controllerrevisions', singular: 'controllerrevision', kind: 'ControllerRevision', listKind: 'ControllerRevisionList',
    namespaced: true, verbs: ALL_VERBS, subresources: [], hasStatusSubresource: false,
    // `revision` is an int64 without omitempty; `data` (a RawExtension) is omitempty.
    emptyFields: { revision: 0 },
  }];
}
