// An API server that serves discovery for pods correctly and then misbehaves on pods themselves, as a
// test chooses: for the hardening tests (backoff, bounds, first contact) of the built CLI.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { writeKubeconfig } from '../../src/sim/kubeconfig.js';
import { json, startStub, type StubServer } from './stub-server.js';
import { tempDir } from '../temp-dir.js';

const coreV1 = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'], shortNames: ['po'] }],
};

export type PodsHandler = (req: IncomingMessage, res: ServerResponse, watch: boolean) => void;

export interface MisbehavingServer {
  stub: StubServer;
  /** A kubeconfig pointing at the server (and a discovery cache of its own), for the CLI's env. */
  env: Record<string, string>;
  /** Requests for pods so far: lists and watches. */
  lists(): number;
  watches(): number;
  /** When each watch request for pods arrived (Date.now()). */
  watchTimes(): number[];
  close(): Promise<void>;
}

export async function startMisbehavingServer(pods: PodsHandler): Promise<MisbehavingServer> {
  const stub = await startStub({
    '/api': (_q, r) => json(r, 200, { kind: 'APIVersions', versions: ['v1'] }),
    '/apis': (_q, r) => json(r, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] }),
    '/api/v1': (_q, r) => json(r, 200, coreV1),
    '/api/v1/namespaces/default/pods': (req, res) => pods(req, res, (req.url ?? '').includes('watch=true')),
    '/api/v1/pods': (req, res) => pods(req, res, (req.url ?? '').includes('watch=true')),
  });
  const dir = tempDir('kwatch-misbehaving-');
  await writeKubeconfig(join(dir, 'config'), stub.url);
  const of = (watch: boolean) => stub.requests.filter((r) => /^\/api\/v1\/(namespaces\/default\/)?pods\b/.test(r.url) && r.url.includes('watch=true') === watch);
  const count = (watch: boolean) => of(watch).length;
  return {
    stub,
    env: { KUBECONFIG: join(dir, 'config'), KUBECACHEDIR: join(dir, 'cache') },
    lists: () => count(false),
    watches: () => count(true),
    watchTimes: () => of(true).map((r) => r.at),
    close: () => stub.close(),
  };
}

export const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
export const podList = (rv: string, items: unknown[] = []) => ({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items });

/** A watch-list request (sendInitialEvents=true), what client-go 1.35's reflector and kwatch send first. */
export const isWatchList = (req: IncomingMessage): boolean => new URL(req.url ?? '/', 'http://stand-in').searchParams.get('sendInitialEvents') === 'true';

/**
 * The BOOKMARK that ends a watch-list's initial events, as kube-apiserver sends it (an object of the kind with only a
 * resourceVersion and the k8s.io/initial-events-end annotation; staging/src/k8s.io/apiserver/pkg/storage/cacher).
 */
export const initialEventsEnd = (kind: string, apiVersion: string, rv: string) => ({
  type: 'BOOKMARK',
  object: { kind, apiVersion, metadata: { resourceVersion: rv, annotations: { 'k8s.io/initial-events-end': 'true' } } },
});
