// A small hand-made recording shared by the recording tests: an initial list, two watch connections,
// a 410, a relist that reveals a gap, and one more watch.
import type { RecordingEntry, RecordingHeader } from '../../../src/informer/recording/recording-format.js';
import type { KubeObject } from '../../../src/informer/types.js';

export const HEADER: RecordingHeader = {
  kind: 'KwatchRecording',
  formatVersion: 1,
  kwatchVersion: '0.1.0',
  server: 'https://example.test:6443',
  resources: [{ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }],
  startTime: '2026-01-01T00:00:00.000Z',
  masked: true,
};

export function pod(name: string, rv: number, image = 'nginx:1'): KubeObject {
  return { kind: 'Pod', apiVersion: 'v1', metadata: { namespace: 'default', name, uid: `uid-${name}`, resourceVersion: String(rv) }, spec: { containers: [{ name: 'c', image }] } };
}

const expired = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 105 (107)', reason: 'Expired', code: 410 } as unknown as KubeObject;

export const ENTRIES: RecordingEntry[] = [
  { rec: 'list', t: 10, res: 0, conn: 1, options: { resourceVersion: '0', limit: 500 }, page: { metadata: { resourceVersion: '100' }, items: [pod('a', 90), pod('b', 95)] } },
  { rec: 'watch-start', t: 12, res: 0, conn: 2, options: { resourceVersion: '100', allowWatchBookmarks: true, timeoutSeconds: 400 } },
  { rec: 'event', t: 100, res: 0, conn: 2, event: { type: 'MODIFIED', object: pod('a', 101, 'nginx:2') } },
  { rec: 'event', t: 200, res: 0, conn: 2, event: { type: 'ADDED', object: pod('c', 102) } },
  { rec: 'event', t: 300, res: 0, conn: 2, event: { type: 'DELETED', object: pod('b', 103) } },
  { rec: 'event', t: 400, res: 0, conn: 2, event: { type: 'MODIFIED', object: pod('c', 104, 'redis:7') } },
  { rec: 'watch-end', t: 500, res: 0, conn: 2, reason: 'eof' },
  { rec: 'watch-start', t: 501, res: 0, conn: 3, options: { resourceVersion: '104', allowWatchBookmarks: true, timeoutSeconds: 400 } },
  { rec: 'event', t: 600, res: 0, conn: 3, event: { type: 'MODIFIED', object: pod('a', 105, 'nginx:3') } },
  { rec: 'event', t: 700, res: 0, conn: 3, event: { type: 'ERROR', object: expired } },
  { rec: 'watch-end', t: 700, res: 0, conn: 3, reason: 'aborted' },
  { rec: 'list', t: 2000, res: 0, conn: 4, options: { resourceVersion: '105' }, page: { metadata: { resourceVersion: '110' }, items: [pod('a', 105, 'nginx:3'), pod('c', 108, 'redis:8'), pod('d', 109)] } },
  { rec: 'watch-start', t: 2001, res: 0, conn: 5, options: { resourceVersion: '110', allowWatchBookmarks: true, timeoutSeconds: 400 } },
  { rec: 'event', t: 2100, res: 0, conn: 5, event: { type: 'MODIFIED', object: pod('d', 111, 'busybox') } },
  { rec: 'event', t: 2150, res: 0, conn: 5, event: { type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '115' } } } },
  { rec: 'watch-end', t: 2200, res: 0, conn: 5, reason: 'aborted' },
];

/** The recording as file text. */
export function recordingText(header: object = HEADER, entries: object[] = ENTRIES): string {
  return [header, ...entries].map((l) => JSON.stringify(l)).join('\n') + '\n';
}
