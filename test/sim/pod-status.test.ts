import { describe, expect, it } from 'vitest';
import type { SimObject } from '../../src/sim/api.js';
import { podStatusFor } from '../../src/sim/controllers/pod-status.js';

describe('podStatusFor (the kubelet stand-in)', () => {
  it("keeps a container's imageID when it terminates: the image it ran does not change", () => {
    const pod: SimObject = {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-0', namespace: 'default', uid: 'u1' },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'web', image: 'docker.io/library/nginx:1.27', imageID: 'nginx@sha256:1111', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }] },
    };
    const stopped = podStatusFor(pod, 'stopped', { ip: '10.0.0.1' }, undefined, '2026-01-01T00:01:00Z') as { containerStatuses: { imageID: string; state: unknown }[] };
    expect(stopped.containerStatuses[0].state).toHaveProperty('terminated');
    expect(stopped.containerStatuses[0].imageID).toBe('nginx@sha256:1111');
    // A container that never ran gets the digest the stand-in computes, stable across calls.
    const fresh = { ...pod, status: { phase: 'Pending' } };
    const a = (podStatusFor(fresh, 'running', { ip: '10.0.0.1' }, '10.1.0.5', 't') as { containerStatuses: { imageID: string }[] }).containerStatuses[0].imageID;
    expect(a).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
  });
});
