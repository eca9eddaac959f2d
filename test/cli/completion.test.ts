// What `kwatch __complete` offers for each kind of word, from the committed manifest (the flag definitions)
// and fake cluster sources: the candidates a user sees on TAB, and cobra's directive the shell acts on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { complete, type CandidateSources, type TargetFlags } from '../../src/cli/completion/complete.js';
import type { Manifest } from '../../src/cli/oclif-manifest.js';
import { Directive } from '../../src/cli/completion/directive.js';
import { runComplete } from '../../src/cli/completion/run-complete.js';
import { STAGES } from '../../src/informer/trace.js';

const manifestFile = join(import.meta.dirname, '..', '..', 'oclif.manifest.json');
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;

interface Asked {
  what: string;
  target: TargetFlags;
}

function fakeSources(asked: Asked[] = []): CandidateSources {
  return {
    resources: async (target) => {
      asked.push({ what: 'resources', target });
      return ['configmaps', 'deployments.apps', 'namespaces', 'pods', 'widgets.example.com'];
    },
    names: async (target, type) => {
      asked.push({ what: `names ${type}`, target });
      return type.startsWith('po') ? ['web-1', 'web-2', 'db-0'] : [];
    },
    namespaces: async (target) => {
      asked.push({ what: 'namespaces', target });
      return ['default', 'dev', 'kube-system'];
    },
    kubeconfigNames: async (target, kind) => {
      asked.push({ what: kind, target });
      return kind === 'contexts' ? ['kind-dev', 'prod'] : [];
    },
  };
}

const values = async (...args: string[]) => (await complete(manifest, args, fakeSources())).candidates.map((c) => c.value);

describe('kwatch __complete: commands and flags', () => {
  it('completes command names, with their summaries, and never the hidden ones', async () => {
    const c = await complete(manifest, ['ev'], fakeSources());
    expect(c.candidates).toEqual([{ value: 'events', description: 'Watch a resource and print what each stage of the informer pipeline saw.' }]);
    expect(c.directive).toBe(Directive.NoFileComp);
    const all = await values('');
    expect(all).toEqual(expect.arrayContaining(['api-resources', 'completion', 'discovery', 'events', 'help', 'index', 'list', 'reconcile', 'replay', 'sim']));
    expect(all.some((v) => v.startsWith('__'))).toBe(false);
    expect(await values('help', 're')).toEqual(['reconcile', 'replay']);
  });

  it("completes a command's long flags, and short ones after a single dash", async () => {
    expect(await values('events', '--st')).toEqual(['--stages', '--stall-after']);
    expect(await values('events', '--stag')).toEqual(['--stages']);
    expect(await values('events', '--no-c')).toEqual([]);
    expect(await values('sim', '--no-c')).toEqual(['--no-controllers']);
    const dash = await values('events', '-');
    expect(dash).toEqual(expect.arrayContaining(['-n', '-A', '-o', '-l', '--namespace', '--max-events', '--help', '-h']));
    expect((await values('events', '--')).some((v) => /^-[^-]/.test(v))).toBe(false);
  });

  it('does not offer a flag already given once, but does offer a repeatable one', async () => {
    expect(await values('events', 'pods', '--fifo', 'real', '--fi')).toEqual(['--field-selector']);
    expect(await values('index', '--by', 'phase', '--b')).toEqual(['--by']);
  });
});

describe('kwatch __complete: flag values, from the flag definitions', () => {
  it('offers the options a flag defines (--fifo, --writes, --on-expired, completion SHELL)', async () => {
    expect(await values('events', '--fifo', '')).toEqual(['real', 'delta']);
    expect(await values('reconcile', '--writes', '')).toEqual(['intercept', 'overlay', 'server-dry-run', 'apply']);
    expect(await values('replay', '--on-expired', 'r')).toEqual(['relist']);
    expect(await values('completion', '')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
  });

  it('offers -o formats, for -o VALUE, -o=VALUE and --output=VALUE (the value alone, as cobra)', async () => {
    expect(await values('events', '-o', '')).toEqual(['table', 'wide', 'json', 'ndjson', 'yaml', 'name']);
    expect(await values('events', '-o', 'nd')).toEqual(['ndjson']);
    expect(await values('list', 'pods', '--output=j')).toEqual(['json']);
  });

  it('completes --stages as a comma-separated list, without a space after it', async () => {
    const first = await complete(manifest, ['events', '--stages', ''], fakeSources());
    expect(first.candidates.map((c) => c.value)).toEqual([...STAGES, 'all']);
    expect(first.directive).toBe(Directive.NoFileComp | Directive.NoSpace);
    expect(await values('events', '--stages', 'watch,f')).toEqual(['watch,fifo']);
    expect(await values('events', '--stages', 'watch,')).not.toContain('watch,watch');
  });

  it('completes --by index kinds; label: and annotation: take no space, as a key follows', async () => {
    expect(await values('index', '--by', '')).toEqual(['namespace', 'nodeName', 'phase', 'owner', 'label:', 'annotation:', 'jsonpath:']);
    const label = await complete(manifest, ['index', '--by', 'la'], fakeSources());
    expect(label).toEqual({ candidates: [{ value: 'label:' }], directive: Directive.NoFileComp | Directive.NoSpace });
    expect((await complete(manifest, ['index', '--by', 'no'], fakeSources())).directive).toBe(Directive.NoFileComp);
    expect(await values('index', '--by', 'label:ap')).toEqual([]);
  });

  it('leaves file flags (--kubeconfig, --with, --record) to the shell: no candidates, file completion allowed', async () => {
    for (const args of [['events', '--kubeconfig', ''], ['reconcile', '--with', 'ctl'], ['events', 'pods', '--record', '']]) {
      expect(await complete(manifest, args, fakeSources())).toEqual({ candidates: [], directive: Directive.Default });
    }
  });

  it('offers contexts from the kubeconfig for --context', async () => {
    expect(await values('events', '--context', 'k')).toEqual(['kind-dev']);
  });
});

describe('the value lists completion offers are what the parsers accept', () => {
  it('every --by kind offered builds an index, and every --stages word parses', async () => {
    const { indexFuncFromSpec } = await import('../../src/informer/index-funcs.js');
    const { parseStages } = await import('../../src/render/stage-filter.js');
    for (const spec of await values('index', '--by', '')) expect(() => indexFuncFromSpec(spec.endsWith(':') ? `${spec}${spec === 'jsonpath:' ? '{.a}' : 'app'}` : spec), spec).not.toThrow();
    for (const stage of await values('events', '--stages', '')) expect(() => parseStages(stage), stage).not.toThrow();
  });
});

describe('kwatch __complete: from the cluster', () => {
  it('offers resource types for RESOURCE, after a comma too, and asks with the flags typed so far', async () => {
    const asked: Asked[] = [];
    const c = await complete(manifest, ['events', '--context', 'prod', '-n', 'dev', 'dep'], fakeSources(asked));
    expect(c).toEqual({ candidates: [{ value: 'deployments.apps' }], directive: Directive.NoFileComp });
    expect(asked).toEqual([{ what: 'resources', target: { context: 'prod', namespace: 'dev' } }]);
    expect(await values('events', 'pods,con')).toEqual(['pods,configmaps']);
    expect(await values('discovery', '--explain', 'wi')).toEqual(['widgets.example.com']);
  });

  it('asks the embedded cluster a --sim command would start, with its workload flags', async () => {
    const asked: Asked[] = [];
    await complete(manifest, ['events', '--sim', '--sim-seed', '7', '-n', 'dev', 'pods', ''], fakeSources(asked));
    expect(asked).toEqual([{ what: 'names pods', target: { sim: true, simWorkload: { seed: '7' }, namespace: 'dev' } }]);
  });

  it('offers object names for NAME and for TYPE/NAME, in the namespace typed', async () => {
    const asked: Asked[] = [];
    expect(await complete(manifest, ['events', 'po', '-A', 'web'], fakeSources(asked))).toEqual({ candidates: [{ value: 'web-1' }, { value: 'web-2' }], directive: Directive.NoFileComp });
    expect(asked).toEqual([{ what: 'names po', target: { allNamespaces: true } }]);
    expect(await values('events', 'pods/d')).toEqual(['pods/db-0']);
  });

  it('offers namespaces for -n and --namespace', async () => {
    expect(await values('list', 'pods', '-n', 'd')).toEqual(['default', 'dev']);
    expect(await values('list', 'pods', '--namespace=k')).toEqual(['kube-system']);
  });

  it('lets replay TARGET be a file as well as a resource type', async () => {
    const c = await complete(manifest, ['replay', 'p'], fakeSources());
    expect(c).toEqual({ candidates: [{ value: 'pods' }], directive: Directive.Default });
  });

  it('offers nothing, and does not fail, when the cluster cannot answer', async () => {
    const failing: CandidateSources = {
      resources: () => Promise.reject(new Error('connection refused')),
      names: () => Promise.reject(new Error('connection refused')),
      namespaces: () => Promise.reject(new Error('connection refused')),
      kubeconfigNames: () => Promise.reject(new Error('no kubeconfig')),
    };
    expect(await complete(manifest, ['events', ''], failing)).toEqual({ candidates: [], directive: Directive.NoFileComp });
    expect(await complete(manifest, ['events', '-n', ''], failing)).toEqual({ candidates: [], directive: Directive.NoFileComp });
  });
});

describe('the __complete output', () => {
  it('prints value<TAB>description lines, then :directive (no descriptions for __completeNoDesc)', async () => {
    expect(await runComplete(['ev'], { manifest: manifestFile, descriptions: true, sources: fakeSources() })).toBe('events\tWatch a resource and print what each stage of the informer pipeline saw.\n:4\n');
    expect(await runComplete(['events', '--fifo', ''], { manifest: manifestFile, descriptions: false, sources: fakeSources() })).toBe('real\ndelta\n:4\n');
  });

  it('takes the manifest itself, as the single executable carries it', async () => {
    expect(await runComplete(['ev'], { manifest, descriptions: false, sources: fakeSources() })).toBe('events\n:4\n');
  });

  it('answers :1 (an error: complete nothing) without a manifest', async () => {
    expect(await runComplete(['ev'], { manifest: join(import.meta.dirname, 'nope.json'), descriptions: true, sources: fakeSources() })).toBe(':1\n');
  });
});
