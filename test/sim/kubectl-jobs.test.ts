// Conformance: real kubectl (v1.32) runs a batch/v1 Job on the sim with its controllers on — api-resources lists
// jobs, create job (a protobuf body), wait --for=condition=complete, get jobs/pods, and delete cascading to the pods.
import { describe, expect, it } from 'vitest';
import { PODS, kubectlSim, until } from './sim-helpers.js';

// One node; pods start after 100 ms and a Job's pod runs for 300 ms; 30 s of grace take 0.6 s.
const fx = kubectlSim({ nodes: 1, pods: 0, churn: 0, controllers: { graceScale: 0.02, podStartMs: 100, jobPodRunMs: 300 } }, 'kwatch-jobs-');
const kubectl = fx.kubectl;

const rows = (out: string): string[][] => out.trim().split('\n').filter(Boolean).map((l) => l.split(/\s+/));

describe('kubectl jobs against the sim', () => {
  it('api-resources --api-group=batch lists cronjobs and jobs as a 1.32 server does', async () => {
    const r = await kubectl('api-resources', '--api-group=batch', '-o', 'wide');
    expect(r.code).toBe(0);
    const lines = rows(r.stdout);
    expect(lines[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
    expect(lines.slice(1)).toEqual([
      ['cronjobs', 'cj', 'batch/v1', 'true', 'CronJob', 'create,delete,deletecollection,get,list,patch,update,watch', 'all'],
      ['jobs', 'batch/v1', 'true', 'Job', 'create,delete,deletecollection,get,list,patch,update,watch', 'all']]);
  });

  it('create job → wait complete → get jobs Complete 1/1 and its pod Completed', async () => {
    const c = await kubectl('create', 'job', 'pi', '--image=busybox', '--', 'echo', 'hi');
    expect(c.stderr).toBe('');
    expect(c.stdout.trim()).toBe('job.batch/pi created');
    const w = await kubectl('wait', '--for=condition=complete', 'job/pi', '--timeout=20s');
    expect(w.stderr).toBe('');
    expect(w.stdout.trim()).toBe('job.batch/pi condition met');

    const g = rows((await kubectl('get', 'jobs', '-o', 'wide')).stdout);
    expect(g[0]).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(g[1].slice(0, 3)).toEqual(['pi', 'Complete', '1/1']);
    expect(g[1][3]).toMatch(/^\d+s$/);
    expect(g[1].slice(5, 7)).toEqual(['pi', 'busybox']);
    const job = JSON.parse((await kubectl('get', 'job', 'pi', '-o', 'json')).stdout);
    expect(g[1][7]).toBe(`batch.kubernetes.io/controller-uid=${job.metadata.uid}`);
    expect(job.spec).toMatchObject({ parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, manualSelector: false });
    // kube's container defaults (an untagged image is pulled Always).
    expect(job.spec.template.spec.containers).toEqual([{
      name: 'pi', image: 'busybox', command: ['echo', 'hi'], resources: {},
      imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    }]);
    expect(job.spec.template.metadata.labels).toEqual({
      'batch.kubernetes.io/controller-uid': job.metadata.uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': job.metadata.uid, 'job-name': 'pi',
    });
    expect(job.status).toMatchObject({ succeeded: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(job.status.conditions.map((x: { type: string; reason: string }) => [x.type, x.reason])).toEqual([['SuccessCriteriaMet', 'CompletionsReached'], ['Complete', 'CompletionsReached']]);

    const p = rows((await kubectl('get', 'pods', '-l', 'job-name=pi', '--no-headers')).stdout);
    expect(p).toHaveLength(1);
    expect(p[0][0]).toMatch(/^pi-[a-z0-9]{5}$/);
    expect(p[0].slice(1, 4)).toEqual(['0/1', 'Completed', '0']);
  });

  it('delete job removes its pods', async () => {
    const d = await kubectl('delete', 'job', 'pi');
    expect(d.stdout.trim()).toBe('job.batch "pi" deleted');
    // The wait reads the sim's store (no kubectl per poll); kubectl judges once it holds.
    await until(() => fx.sim.api.list(PODS, 'default').every((p) => p.metadata.labels?.['job-name'] !== 'pi'), 15_000);
    const pods = await kubectl('get', 'pods', '-l', 'job-name=pi', '--no-headers');
    expect([pods.stdout.trim(), pods.stderr.trim()]).toEqual(['', 'No resources found in default namespace.']);
    expect((await kubectl('get', 'jobs')).stderr.trim()).toBe('No resources found in default namespace.');
  });
});
