// Completion end to end: the built CLI's __complete against the embedded server over HTTP, kubectl's own
// `__complete` driving bin/kubectl_complete-kwatch, and the scripts of `kwatch completion` in real shells.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimServer, type SimServer } from '../../src/sim/server.js';
import { safeHostDir } from '../../src/kube/discovery/discovery-cache.js';
import { KUBECTL } from '../kube/kubectl.js';
import { BIN, kwatch, run } from './events-helpers.js';
import { tempDir } from '../temp-dir.js';

const binDir = join(import.meta.dirname, '..', '..', 'bin');
const dir = tempDir('kwatch-e2e-complete-');
const kubeconfig = join(dir, 'kubeconfig');
const cacheDir = join(dir, 'cache');
// `kwatch` on PATH, as an installed CLI is (the scripts call it by that name).
const pathDir = join(dir, 'path');
let sim: SimServer;
let env: Record<string, string>;

/** The candidates (lines before the directive) and the directive of a __complete answer. */
function answer(stdout: string): { values: string[]; directive: number } {
  const lines = stdout.split('\n').filter(Boolean);
  const last = lines.pop() ?? '';
  expect(last).toMatch(/^:\d+$/);
  return { values: lines.map((l) => l.split('\t')[0]), directive: Number(last.slice(1)) };
}

beforeAll(async () => {
  sim = await startSimServer({ port: 0, seed: 3, pods: 12, nodes: 2, churn: 0 });
  await sim.writeKubeconfig(kubeconfig);
  execFileSync(process.execPath, [BIN, '--version']);
  rmSync(pathDir, { recursive: true, force: true });
  execFileSync('mkdir', ['-p', pathDir]);
  symlinkSync(BIN, join(pathDir, 'kwatch'));
  env = { KUBECONFIG: kubeconfig, KUBECACHEDIR: cacheDir, PATH: [pathDir, binDir, process.env.PATH].join(delimiter) };
});
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('kwatch __complete against the embedded server', () => {
  it("offers resource types from discovery and leaves kubectl's discovery cache behind", async () => {
    const r = await kwatch(['__complete', 'events', 'dep'], env);
    expect(r.code).toBe(0);
    expect(answer(r.stdout)).toEqual({ values: ['deployments.apps'], directive: 4 });
    expect(readdirSync(join(cacheDir, 'discovery', safeHostDir(sim.url)))).toContain('servergroups.json');
    // Every type kubectl lists (and so could list): the names `kubectl api-resources -o name` prints.
    const k = await run(KUBECTL, ['api-resources', '--verbs', 'list', '-o', 'name'], env);
    expect(answer((await kwatch(['__complete', 'list', ''], env)).stdout).values).toEqual(k.stdout.split('\n').filter(Boolean).sort());
  });

  it('offers namespaces for -n, and object names in the namespace typed', async () => {
    const ns = answer((await kwatch(['__complete', 'events', 'pods', '-n', ''], env)).stdout).values;
    expect(ns).toEqual(expect.arrayContaining(['default', 'kube-system']));
    const list = (await (await fetch(`${sim.url}/api/v1/pods`)).json()) as { items: { metadata: { name: string; namespace: string } }[] };
    const some = list.items[0].metadata;
    const names = answer((await kwatch(['__complete', 'events', 'pods', '-n', some.namespace, ''], env)).stdout).values;
    expect(names).toEqual(list.items.filter((p) => p.metadata.namespace === some.namespace).map((p) => p.metadata.name).sort());
    const typed = answer((await kwatch(['__complete', 'events', '-n', some.namespace, `po/${some.name}`], env)).stdout).values;
    expect(typed).toEqual([`po/${some.name}`]);
  });

  it('with --sim, offers the names of the embedded cluster that command would start', async () => {
    const names = answer((await kwatch(['__complete', 'events', '--sim', '--sim-seed', '5', '-n', 'default', 'pods', ''], env)).stdout).values;
    const listed = await kwatch(['list', 'pods', '--sim', '--sim-seed', '5', '--sim-churn', '0', '-n', 'default', '-o', 'name'], env);
    expect(names.length).toBeGreaterThan(0);
    expect(names).toEqual(listed.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^pod\//, '')).sort());
  });

  describe('a server that accepts connections and never answers', () => {
    let silent: Server;
    const sockets: Socket[] = [];
    let silentEnv: Record<string, string>;
    beforeAll(async () => {
      silent = createServer((s) => sockets.push(s));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as { port: number }).port;
      const file = join(dir, 'silent.kubeconfig');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, `apiVersion: v1\nkind: Config\nclusters: [{name: s, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: s, context: {cluster: s, user: u}}]\ncurrent-context: s\n`);
      silentEnv = { ...env, KUBECONFIG: file, KUBECACHEDIR: join(dir, 'silent-cache') };
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('offers nothing once --request-timeout has passed, and prints no error', async () => {
      const started = Date.now();
      const r = await kwatch(['__complete', 'events', '--request-timeout', '1s', 'po'], silentEnv);
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(r).toMatchObject({ code: 0, stdout: ':4\n', stderr: '' });
    });
  });
});

describe('kubectl kwatch <TAB>: kubectl runs bin/kubectl_complete-kwatch', () => {
  it('lists the events command for `kubectl __complete kwatch ev`', async () => {
    const r = await run(KUBECTL, ['__complete', 'kwatch', 'ev'], env);
    expect(r.code).toBe(0);
    expect(answer(r.stdout)).toEqual({ values: ['events'], directive: 4 });
  });

  it('passes the cluster questions through: resource types and flag values', async () => {
    expect(answer((await run(KUBECTL, ['__complete', 'kwatch', 'events', 'dep'], env)).stdout).values).toEqual(['deployments.apps']);
    expect(answer((await run(KUBECTL, ['__complete', 'kwatch', 'events', '--fifo', ''], env)).stdout).values).toEqual(['real', 'delta']);
  });
});

/**
 * Runs a bash completion of each line (cursor at the end) with the script `kwatch completion bash` prints: one bash
 * sources the script once, and each completion runs in a subshell of its own, so that none sees another's variables.
 */
function bashComplete(lines: string[]): Promise<string[][]> {
  // bash's own word split breaks at = and :, which the script has to undo.
  const script = `
source <(kwatch completion bash)
for line in "$@"; do
  (
    COMP_LINE="$line"; COMP_POINT=\${#line}
    l="\${line//=/ = }"; l="\${l//:/ : }"
    read -r -a COMP_WORDS <<<"$l"; [[ "$line" =~ [[:space:]]$ ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
    _kwatch_complete
    printf '%s\\n' "\${COMPREPLY[@]}"
  )
  printf '@@end@@\\n'
done`;
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', script, 'bash', ...lines], { env: { ...process.env, ...env } }, (err, stdout) =>
      err ? reject(err) : resolve(stdout.split('@@end@@\n').slice(0, lines.length).map((out) => out.split('\n').filter(Boolean))),
    ),
  );
}

describe('kwatch completion SHELL, in the shells', () => {
  it('bash: commands, flag values after = and after a comma, resource types from the server', async () => {
    const lines = ['kwatch ev', 'kwatch events --output=nd', 'kwatch events --stages watch,f', 'kwatch events dep', 'kwatch completion '];
    expect(await bashComplete(lines)).toEqual([['events'], ['ndjson'], ['watch,fifo'], ['deployments.apps'], ['bash', 'zsh', 'fish', 'powershell']]);
  });

  it('prints a script without loading oclif, and rejects an unknown shell in one line', async () => {
    const ok = await kwatch(['completion', 'powershell'], env);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toContain("Register-ArgumentCompleter -Native -CommandName 'kwatch'");
    expect(await kwatch(['completion', 'tcsh'], env)).toMatchObject({ code: 1, stdout: '', stderr: 'error: unknown shell: use one of bash, zsh, fish, powershell\n' });
  });

  const fish = ['/usr/bin/fish', '/usr/local/bin/fish'].find((p) => existsSync(p));
  it.skipIf(!fish)('fish (skipped only where fish is missing; .ci/run installs it): the same candidates, the --flag= kept before values', async () => {
    const r = await run(fish!, ['-c', 'kwatch completion fish | source; complete -C "kwatch ev"; complete -C "kwatch events --output=nd"; complete -C "kwatch events dep"'], env);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0])).toEqual(['events', '--output=ndjson', 'deployments.apps']);
  });

  const zsh = ['/usr/bin/zsh', '/bin/zsh', '/usr/local/bin/zsh'].find((p) => existsSync(p));
  it.skipIf(!zsh)('zsh (skipped only where zsh is missing; .ci/run installs it): the script loads after compinit (syntax and compdef)', async () => {
    const r = await run(zsh!, ['-f', '-c', 'autoload -U compinit && compinit -u -d "$1/zcompdump" && source <(kwatch completion zsh) && print -r -- ${_comps[kwatch]}', 'zsh', dir], env);
    expect(r).toMatchObject({ code: 0, stdout: '_kwatch_complete\n' });
  });
});
