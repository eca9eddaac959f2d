// How fast this host is right now, in the unit the watch benchmarks pay: `JSON.parse` of one ~6.7 KB pod event per
// turn of the event loop, the newest 5,000 objects kept in a Map (so the scavenger works as it does in a cache).
// The same fixed work every time, no network and no kwatch code: comparing its figure between two runs says how much
// of a difference the host itself made. Prints one JSON line: {"usPerOp": median of ROUNDS, "rounds": [...]}.
// Run: node bench/lib/calibrate.js [rounds]
import { fileURLToPath } from 'node:url';

const OPS = 10_000;
const KEPT = 5_000;

/** A pod-shaped watch event, its size and shape near the sim's (labels, owner, two containers' worth of status, managedFields). */
function eventLine(i) {
  const name = `app-${i % 97}-7f9c${(i * 7919) % 100_000}-x${i}`;
  const fields = Object.fromEntries(Array.from({ length: 24 }, (_, k) => [`f:field${k}`, { '.': {}, [`f:sub${k}`]: {}, 'f:value': {} }]));
  const container = (n) => ({
    name: `c${n}`,
    image: `registry.example.com/team/app-${i % 97}:1.${n}.${i % 13}`,
    ports: [{ containerPort: 8080 + n, protocol: 'TCP' }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
    env: Array.from({ length: 6 }, (_, k) => ({ name: `ENV_${k}`, value: `value-${k}-${i % 31}` })),
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: `kube-api-access-${i % 1000}`, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }],
  });
  const pod = {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name,
      namespace: `ns-${i % 20}`,
      uid: `4c1f${i.toString(16).padStart(8, '0')}-1111-2222-3333-444455556666`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: '2026-11-27T00:00:00Z',
      labels: { app: `app-${i % 97}`, tier: 'backend', 'pod-template-hash': '7f9c' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `app-${i % 97}-7f9c`, uid: 'aaaa-bbbb', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': fields, 'f:spec': fields } },
        { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: '2026-11-27T00:00:01Z', fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: { 'f:status': fields } },
      ],
    },
    spec: { nodeName: `node-${i % 100}`, containers: [container(0), container(1)], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', serviceAccountName: 'default' },
    status: { phase: 'Running', podIP: `10.0.${(i >> 8) & 255}.${i & 255}`, conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: '2026-11-27T00:00:00Z' })) },
  };
  return JSON.stringify({ type: 'MODIFIED', object: pod });
}

/** One round: µs per event for OPS events, one per turn of the event loop. */
async function round(lines) {
  const kept = new Map();
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) {
    await new Promise((r) => setImmediate(r));
    const ev = JSON.parse(lines[i % lines.length]);
    kept.set(i % KEPT, ev.object);
  }
  return ((performance.now() - t0) * 1000) / OPS;
}

/** Median µs per op of `rounds` rounds in this process, after one round that is not counted (JIT warm-up). */
export async function calibrate(rounds = 3) {
  const lines = Array.from({ length: 2_000 }, (_, i) => eventLine(i));
  await round(lines);
  const us = [];
  for (let i = 0; i < rounds; i++) us.push(Math.round((await round(lines)) * 10) / 10);
  const sorted = [...us].sort((a, b) => a - b);
  return { usPerOp: sorted[(sorted.length - 1) >> 1], rounds: us, bytesPerEvent: Math.round(lines.reduce((n, l) => n + l.length, 0) / lines.length) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await calibrate(Number(process.argv[2] ?? 3))));
