import { describe, expect, it } from 'vitest';
import { ClientRegistry, ClientSession, clientName } from '../../src/endpoint/client-session.js';
import { clientIdentity, programName } from '../../src/endpoint/client-identity.js';
import { decodedObject } from '../../src/endpoint/sent-object.js';
import { scanWatchEvent } from '../../src/endpoint/body-scan.js';

const cm = (name: string, rv: string, extra: Record<string, unknown> = {}) => decodedObject({ metadata: { namespace: 'demo', name, resourceVersion: rv, uid: `uid-${name}`, ...extra } });

describe('clientName', () => {
  it('names a client by its User-Agent product, with the component client-go appends', () => {
    expect(clientName('manager/v0.0.0 (linux/amd64) kubernetes/$Format/leader-election')).toBe('manager/leader-election');
    expect(clientName('kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07')).toBe('kubectl');
    expect(clientName('OpenAPI-Generator/22.6.0/python')).toBe('OpenAPI-Generator');
    expect(clientName(undefined)).toBe('unknown');
  });
});

describe('ClientSession', () => {
  it('keeps one copy of a version sent on several of its watches, and no view into the chunk a watch line came in', () => {
    const line = (rv: string) => Buffer.from(`${JSON.stringify({ type: 'MODIFIED', object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a', namespace: 'demo', uid: 'uid-a', resourceVersion: rv }, spec: { nodeName: 'n1' } } })}\n`);
    const s = new ClientSession('c', 'c');
    const chunk = line('5');
    s.event('pods', scanWatchEvent(chunk), 0);
    const kept = s.newest('pods', 'demo/a');
    // The chunk is the reader's to reuse once written: what the session keeps must not read it later.
    chunk.fill(0x20);
    expect(kept?.raw()).toMatchObject({ metadata: { resourceVersion: '5' }, spec: { nodeName: 'n1' } });
    // The same version again, on the client's second watch of pods: the copy it holds already stays.
    s.event('pods', scanWatchEvent(line('5')), 1);
    expect(s.newest('pods', 'demo/a')).toBe(kept);
    // A newer version replaces it.
    s.event('pods', scanWatchEvent(line('6')), 2);
    expect(s.newest('pods', 'demo/a')?.rv).toBe('6');
    expect(s.newest('pods', 'demo/a')).not.toBe(kept);
  });

  it('says why a client lists a collection again', () => {
    const s = new ClientSession('c', 'c');
    expect(s.listStarted('pods')).toBeUndefined();
    s.watchOpened('pods');
    s.watchClosed('pods', '410');
    expect(s.listStarted('pods')).toMatch(/^it was sent 410 Gone/);
    s.watchOpened('pods');
    s.watchClosed('pods', 'timeout');
    expect(s.listStarted('pods')).toMatch(/^its watch was closed \(timeout\)/);
    expect(s.listStarted('pods')).toMatch(/^nothing the server did/);
    expect(s.relists).toBe(3);
  });

  it('marks a write\'s echo as its own even when the event arrived before the write\'s answer', () => {
    const s = new ClientSession('c', 'c');
    s.event('configmaps', { type: 'MODIFIED', key: 'demo/a', rv: '7', object: cm('a', '7') }, 1000);
    s.ownWrite('configmaps', 'demo/a', '7');
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 1100, 5000)).toEqual([expect.objectContaining({ rv: '7', own: true })]);
  });

  it('names owner and owned objects among the likely triggers, within the window only', () => {
    const s = new ClientSession('c', 'c');
    s.event('secrets', { type: 'MODIFIED', key: 'demo/a-copy', rv: '3', object: cm('a-copy', '3', { ownerReferences: [{ uid: 'uid-a' }] }) }, 1000);
    s.event('configmaps', { type: 'MODIFIED', key: 'demo/other', rv: '4', object: cm('other', '4') }, 1000);
    s.sent('configmaps', cm('a', '2'));
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 2000, 5000).map((t) => t.key)).toEqual(['demo/a-copy']);
    expect(s.likelyTriggers('configmaps', 'demo/a', undefined, 7000, 5000)).toEqual([]);
  });

  it('reports a loop only for rounds re-triggered by its own write, naming the fields that change every round', () => {
    const s = new ClientSession('c', 'c');
    const own = [{ time: 0, resource: 'configmaps', type: 'MODIFIED', key: 'demo/a', owners: [], own: true }];
    const outside = [{ ...own[0], own: false }];
    expect(s.observeWrite('configmaps', 'demo/a', ['data.x', 'metadata.annotations.t'], outside, 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t', 'data.y'], own, 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t'], [...outside, ...own], 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t', 'status.z'], own, 2)).toEqual({ client: 'c', key: 'demo/a', resource: 'configmaps', rounds: 3, fields: ['metadata.annotations.t'] });
    // Reported once; a no-op write ends the streak.
    expect(s.observeWrite('configmaps', 'demo/a', ['metadata.annotations.t'], own, 2)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', [], own, 2)).toBeUndefined();
    expect(s.loops).toHaveLength(1);
  });

  it('an outside trigger restarts the streak', () => {
    const s = new ClientSession('c', 'c');
    const own = [{ time: 0, resource: 'configmaps', type: 'MODIFIED', key: 'demo/a', owners: [], own: true }];
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], own, 1);
    s.observeWrite('configmaps', 'demo/a', ['f'], [], 1);
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own, 1)).toBeUndefined();
    expect(s.observeWrite('configmaps', 'demo/a', ['f'], own, 1)).toMatchObject({ rounds: 2 });
  });
});

describe('clients are processes', () => {
  const link = (pid: number, ppid: number, ...argv: string[]) => ({ pid, ppid, argv });
  const root = link(10, 1, 'sh', '-c', 'the script');

  it('names the program a process runs, the script for an interpreter', () => {
    expect(programName(['/usr/bin/kubectl', 'get', 'pods'])).toBe('kubectl');
    expect(programName(['/usr/bin/python3', '/usr/bin/patroni', 'postgres.yml'])).toBe('patroni');
    expect(programName(['python3', '-u', '-m', 'kopf', 'run'])).toBe('kopf');
    expect(programName(['python3', '-c', 'print(1)'])).toBe('python3');
    expect(programName(['ruby', 'client.rb'])).toBe('client.rb');
    expect(programName(['/bin/sh', '-e', './loop.sh'])).toBe('loop.sh');
  });

  it('reads an interpreter\'s flags as it does: inline code, stdin and `--` name the interpreter or the script after them', () => {
    // Inline code (ruby, perl and node's -e, node's --eval), a script on stdin (`-`): the interpreter is the program.
    expect(programName(['ruby', '-e', 'puts 1'])).toBe('ruby');
    expect(programName(['/usr/bin/perl', '-e', 'print 1', 'arg'])).toBe('perl');
    expect(programName(['node', '--eval', 'run()', 'arg'])).toBe('node');
    expect(programName(['python3', '-', 'arg'])).toBe('python3');
    // `--` ends the flags: the script follows, or nothing does.
    expect(programName(['node', '--', '/srv/app/server.js'])).toBe('server.js');
    expect(programName(['node', '--'])).toBe('node');
    // Flags only: the interpreter itself (a REPL).
    expect(programName(['python3', '-u'])).toBe('python3');
    expect(programName(['python3'])).toBe('python3');
    // A shell's -m is job control, not Python's module flag: the script is the program, named as any script is.
    expect(programName(['bash', '-m', './loop.sh'])).toBe('loop.sh');
    expect(programName(['python3', '-m', 'http.server', '8000'])).toBe('http.server');
    // No argv (a process whose /proc cmdline is empty, a zombie): it still gets a name.
    expect(programName([])).toBe('unknown');
    expect(programName([''])).toBe('unknown');
  });

  it('has no identity without a process, and does not take a process running a shorter command line for a fork', () => {
    expect(clientIdentity([])).toBeUndefined();
    // An interactive python3 started by `python3 app.py`: the same first arguments, another image.
    const repl = clientIdentity([link(12, 10, 'python3'), link(10, 1, 'python3', 'app.py')]);
    expect(repl).toEqual({ root: false, group: 'python3 < app.py[10]', program: 'python3', pid: 12 });
  });

  it('groups a process by its program and the programs that ran it, subshell forks and wrappers folded away', () => {
    const direct = clientIdentity([link(11, 10, 'kubectl', 'get', 'cm'), root]);
    const inSubshell = clientIdentity([link(13, 12, 'kubectl', 'patch', 'cm'), link(12, 10, 'sh', '-c', 'the script'), root]);
    const wrapped = clientIdentity([link(18, 17, 'kubectl', 'get', '-w', 'cm'), link(17, 10, 'timeout', '5', 'kubectl', 'get', '-w', 'cm'), root]);
    expect(direct).toEqual({ root: false, group: 'kubectl < sh[10]', program: 'kubectl', pid: 11 });
    expect(inSubshell?.group).toBe(direct?.group);
    expect(wrapped?.group).toBe(direct?.group);
    // A helper script run once per item: its kubectl calls are one client across its runs.
    const helper = (pid: number) => clientIdentity([link(pid + 1, pid, 'kubectl', 'apply'), link(pid, 10, 'sh', './reconcile-one.sh', `item-${pid}`), root]);
    expect(helper(30)?.group).toBe('kubectl < reconcile-one.sh < sh[10]');
    expect(helper(40)?.group).toBe(helper(30)?.group);
    expect(clientIdentity([link(14, 10, 'python3', 'a.py'), root])?.group).not.toBe(clientIdentity([link(15, 10, 'python3', 'b.py'), root])?.group);
    // The command itself, and a fork of it (a worker), are the root client.
    expect(clientIdentity([link(16, 10, 'sh', '-c', 'the script'), root])).toMatchObject({ root: true, group: '10', pid: 16 });
    expect(clientIdentity([root])).toMatchObject({ root: true, program: 'sh', pid: 10 });
  });

  it('keeps a process with the client its first connection made, whatever User-Agent it sends next; other User-Agents of other runs are other clients', () => {
    const registry = new ClientRegistry();
    const id = (pid: number) => ({ root: false, group: 'client.rb < sh[10]', program: 'client.rb', pid });
    const list = registry.for('rest-client/2.1.0', id(20));
    expect(list.name).toBe('client.rb[20]');
    expect(registry.for('http.rb/5.0', id(20))).toBe(list);
    expect(registry.for('http.rb/5.0', id(21))).toBe(list);
    expect(registry.for('other/1.0', id(22))).not.toBe(list);
    expect(registry.for('rest-client/2.1.0')).not.toBe(list);
    expect(registry.all()).toHaveLength(3);
  });

  it('judges relists per process: another process\'s first list is no relist, unless it answers a 410', () => {
    const s = new ClientSession('kubectl[20]', 'kubectl', 20);
    expect(s.listStarted('configmaps', 20)).toBeUndefined();
    expect(s.listStarted('configmaps', 21)).toBeUndefined();
    expect(s.listStarted('configmaps', 21)).toMatch(/^nothing the server did/);
    s.watchOpened('configmaps');
    s.watchClosed('configmaps', '410');
    expect(s.listStarted('configmaps', 22)).toMatch(/^it was sent 410 Gone/);
    expect(s.relists).toBe(2);
  });
});
