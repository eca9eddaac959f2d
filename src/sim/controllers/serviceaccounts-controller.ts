// kube-controller-manager's serviceaccount and root-ca-cert-publisher controllers: every active namespace has a
// ServiceAccount "default" and a ConfigMap "kube-root-ca.crt" holding the cluster's CA (the sim's, or a placeholder
// when it serves plain HTTP); both come back when deleted.
import type { Change } from '../history.js';
import type { ResourceType } from '../registry.js';
import type { ControllerContext } from './controller-context.js';
import { WorkQueue } from './work-queue.js';
import { CONTROLLER_MANAGER, writtenBy } from './writer-fields.js';

type Json = Record<string, any>;

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** What kube-root-ca.crt holds when the sim has no CA (plain HTTP): still a PEM block, so readers parse it. */
const NO_CA = '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n';

export class ServiceAccountsController {
  readonly queue: WorkQueue;
  private readonly namespaces: ResourceType;
  private readonly serviceAccounts: ResourceType;
  private readonly configMaps: ResourceType;

  constructor(private readonly ctx: ControllerContext, private readonly caPem: string | undefined, onError?: (key: string, err: unknown) => void) {
    this.queue = new WorkQueue((ns) => this.sync(ns), onError);
    const r = (resource: string): ResourceType => ctx.store.resolve({ group: '', version: 'v1', resource });
    this.namespaces = r('namespaces');
    this.serviceAccounts = r('serviceaccounts');
    this.configMaps = r('configmaps');
  }

  /** The namespaces that exist when the controllers start get theirs too, as on a cluster that has been up a while. */
  start(): void {
    for (const ns of this.ctx.store.storedIn(this.namespaces)) this.queue.add(ns.meta.name);
  }

  observeNamespace(change: Change): void {
    if (change.type !== 'DELETED') this.queue.add(change.cur.meta.name);
  }

  /** A deleted default ServiceAccount or root CA ConfigMap is put back. */
  observeContent(change: Change, type: ResourceType): void {
    if (change.type !== 'DELETED') return;
    if ((type === this.serviceAccounts && change.cur.meta.name === DEFAULT_SERVICE_ACCOUNT) || (type === this.configMaps && change.cur.meta.name === ROOT_CA_CONFIGMAP)) {
      this.queue.add(change.cur.meta.namespace ?? '');
    }
  }

  private sync(namespace: string): void {
    const { store } = this.ctx;
    const ns = store.getStored(this.namespaces, undefined, namespace)?.obj;
    if (!ns || ns.metadata.deletionTimestamp !== undefined || (ns.status as Json | undefined)?.phase === 'Terminating') return;
    if (!store.getStored(this.serviceAccounts, namespace, DEFAULT_SERVICE_ACCOUNT)) {
      store.createObject(this.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } }, writtenBy(this.serviceAccounts, CONTROLLER_MANAGER));
    }
    if (!store.getStored(this.configMaps, namespace, ROOT_CA_CONFIGMAP)) {
      store.createObject(this.configMaps, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { 'kubernetes.io/description': 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.' } },
        data: { 'ca.crt': this.caPem ?? NO_CA },
      }, writtenBy(this.configMaps, CONTROLLER_MANAGER));
    }
  }
}
