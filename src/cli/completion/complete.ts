// What `kwatch __complete ARGS… TO_COMPLETE` answers: the candidates for the word being typed, from the
// manifest (commands, flags, their `options`), the flag value lists, and — for resource types, object
// names and namespaces — the cluster, through sources the caller supplies.
import { Directive } from './directive.js';
import type { Manifest, ManifestCommand, ManifestFlag } from '../oclif-manifest.js';
import { FLAG_VALUES } from './flag-values.js';

export interface Candidate {
  value: string;
  description?: string;
}

export interface Completion {
  candidates: Candidate[];
  directive: number;
}

/** The global flags typed so far that say which cluster to ask (kubectl's __complete honours them too). */
export interface TargetFlags {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  allNamespaces?: boolean;
  /** --request-timeout as typed: bounds the cluster questions (else their own short deadline). */
  requestTimeout?: string;
  /** --sim: the cluster to ask is the embedded one the command would start, shaped by --sim-seed/-pods/-nodes and --kube-version. */
  sim?: boolean;
  simWorkload?: { seed?: string; pods?: string; nodes?: string; kubeVersion?: string };
}

/** Where candidates that live in the cluster or the kubeconfig come from. Each may throw: nothing is offered then. */
export interface CandidateSources {
  /** Resource types as `kubectl api-resources -o name` prints them: pods, deployments.apps, … */
  resources(target: TargetFlags): Promise<string[]>;
  /** Names of objects of a resource type (as the user typed it), in the target namespace. */
  names(target: TargetFlags, resource: string): Promise<string[]>;
  namespaces(target: TargetFlags): Promise<string[]>;
  /** Context, cluster or user names from the kubeconfig. */
  kubeconfigNames(target: TargetFlags, kind: 'contexts' | 'clusters' | 'users'): Promise<string[]>;
}

/** Positional arguments that name a resource type, and the one that names an object of it. */
const RESOURCE_ARGS = new Set(['resource', 'target']);
const NAME_ARG = 'name';

const ROOT_FLAGS: ManifestFlag[] = [
  { name: 'help', char: 'h', type: 'boolean', description: 'Show help.' },
  { name: 'version', type: 'boolean', description: 'Show the version.' },
];

interface Parsed {
  command?: ManifestCommand;
  positionals: string[];
  used: Set<string>;
  target: TargetFlags;
  /** The flag whose value is the word being completed (the previous word was `--flag` without `=`). */
  pendingValueOf?: ManifestFlag;
  /** After `--`: every word is positional. */
  afterDashDash: boolean;
  helpTopic: boolean;
}

export async function complete(manifest: Manifest, args: string[], sources: CandidateSources): Promise<Completion> {
  const words = args.slice(0, -1);
  const toComplete = args.at(-1) ?? '';
  const parsed = parseWords(manifest, words);
  const flags = parsed.command ? visibleFlags(parsed.command) : ROOT_FLAGS;

  if (parsed.pendingValueOf) return flagValues(parsed.pendingValueOf, toComplete, parsed, sources);
  if (toComplete.startsWith('-') && !parsed.afterDashDash) {
    const eq = toComplete.indexOf('=');
    if (toComplete.startsWith('--') && eq !== -1) {
      const flag = findLong(flags, toComplete.slice(2, eq));
      if (!flag || flag.type === 'boolean') return { candidates: [], directive: Directive.NoFileComp };
      // As cobra: the value alone; the shell script keeps the `--flag=` before it.
      return flagValues(flag, toComplete.slice(eq + 1), parsed, sources);
    }
    return { candidates: flagNames(flags, parsed.used, toComplete), directive: Directive.NoFileComp };
  }
  if (!parsed.command || parsed.helpTopic) return { candidates: commandNames(manifest, toComplete, !parsed.helpTopic), directive: Directive.NoFileComp };
  return positional(parsed.command, parsed, toComplete, sources);
}

function parseWords(manifest: Manifest, words: string[]): Parsed {
  const parsed: Parsed = { positionals: [], used: new Set(), target: {}, afterDashDash: false, helpTopic: false };
  const commandIds = new Set(Object.keys(manifest.commands));
  let idWords: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    const flags = parsed.command ? visibleFlags(parsed.command) : ROOT_FLAGS;
    if (parsed.afterDashDash || !w.startsWith('-') || w === '-') {
      if (!parsed.command && !parsed.helpTopic && idWords.length === 0 && w === 'help') {
        parsed.helpTopic = true;
        continue;
      }
      if (!parsed.command) {
        // Topics are spaces on the command line and colons in the manifest: take the longest known id.
        const id = [...idWords, w].join(':');
        if (commandIds.has(id)) {
          parsed.command = manifest.commands[id];
          idWords = [];
          continue;
        }
        if (Object.keys(manifest.commands).some((c) => c.startsWith(`${id}:`))) {
          idWords.push(w);
          continue;
        }
      }
      parsed.positionals.push(w);
      continue;
    }
    if (w === '--') {
      parsed.afterDashDash = true;
      continue;
    }
    let flag: ManifestFlag | undefined;
    let value: string | undefined;
    if (w.startsWith('--')) {
      const eq = w.indexOf('=');
      flag = findLong(flags, eq === -1 ? w.slice(2) : w.slice(2, eq));
      if (eq !== -1) value = w.slice(eq + 1);
    } else {
      // -n dev, -ndev, and runs of boolean short flags such as -Aw.
      for (let j = 1; j < w.length; j++) {
        const f = flags.find((x) => x.char === w[j]);
        if (!f) break;
        parsed.used.add(f.name);
        flag = f;
        if (f.type !== 'boolean') {
          if (j + 1 < w.length) value = w.slice(j + 1);
          break;
        }
      }
    }
    if (!flag) continue;
    parsed.used.add(flag.name);
    if (flag.type === 'boolean') {
      if (flag.name === 'all-namespaces') parsed.target.allNamespaces = !w.startsWith('--no-');
      if (flag.name === 'sim') parsed.target.sim = true;
      continue;
    }
    if (value === undefined) {
      if (i + 1 === words.length) {
        parsed.pendingValueOf = flag;
        break;
      }
      value = words[++i];
    }
    noteTarget(parsed.target, flag.name, value);
  }
  return parsed;
}

function noteTarget(target: TargetFlags, name: string, value: string): void {
  if (name === 'kubeconfig' || name === 'context' || name === 'cluster' || name === 'user' || name === 'namespace') target[name] = value;
  if (name === 'request-timeout') target.requestTimeout = value;
  const sim = /^sim-(seed|pods|nodes)$/.exec(name)?.[1] as 'seed' | 'pods' | 'nodes' | undefined;
  if (sim) target.simWorkload = { ...target.simWorkload, [sim]: value };
  if (name === 'kube-version') target.simWorkload = { ...target.simWorkload, kubeVersion: value };
}

function visibleFlags(cmd: ManifestCommand, includeHidden = false): ManifestFlag[] {
  const flags = Object.values(cmd.flags).filter((f) => includeHidden || !f.hidden);
  return [...flags, ROOT_FLAGS[0]];
}

function findLong(flags: ManifestFlag[], name: string): ManifestFlag | undefined {
  const direct = flags.find((f) => f.name === name || f.aliases?.includes(name));
  if (direct) return direct;
  const negated = name.startsWith('no-') ? flags.find((f) => f.allowNo && f.name === name.slice(3)) : undefined;
  return negated;
}

function firstSentence(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const line = text.split('\n')[0];
  // A sentence ends at a stop followed by a capital (so "e.g. 30s" does not end it).
  const m = /^(.*?[.!?])(\s+[A-Z]|$)/.exec(line);
  return (m ? m[1] : line).trim();
}

/** `--name` (and `-c` when the word is a lone `-` or a short flag start), skipping flags already given once. */
function flagNames(flags: ManifestFlag[], used: Set<string>, toComplete: string): Candidate[] {
  const out: Candidate[] = [];
  const shortToo = !toComplete.startsWith('--');
  for (const f of flags) {
    if (used.has(f.name) && !f.multiple) continue;
    const description = firstSentence(f.summary ?? f.description);
    out.push({ value: `--${f.name}`, description });
    if (f.allowNo) out.push({ value: `--no-${f.name}`, description });
    if (shortToo && f.char) out.push({ value: `-${f.char}`, description });
  }
  return out.filter((c) => c.value.startsWith(toComplete)).sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function commandNames(manifest: Manifest, toComplete: string, withHelp: boolean): Candidate[] {
  const out: Candidate[] = Object.values(manifest.commands)
    .filter((c) => !c.hidden && !c.id.includes(':'))
    .map((c) => ({ value: c.id, description: firstSentence(c.summary ?? c.description) }));
  if (withHelp) out.push({ value: 'help', description: 'Help about any command.' });
  return out.filter((c) => c.value.startsWith(toComplete)).sort((a, b) => (a.value < b.value ? -1 : 1));
}

async function flagValues(flag: ManifestFlag, toComplete: string, parsed: Parsed, sources: CandidateSources): Promise<Completion> {
  if (flag.options?.length) return fixed(flag.options, toComplete, '');
  const known = FLAG_VALUES[flag.name];
  if (known) {
    if (known.commaList) {
      const cut = toComplete.lastIndexOf(',') + 1;
      const done = toComplete.slice(0, cut).split(',').filter(Boolean);
      const rest = known.values.filter((v) => !done.includes(v));
      return { ...fixed(rest, toComplete.slice(cut), toComplete.slice(0, cut)), directive: Directive.NoFileComp | Directive.NoSpace };
    }
    // Past `label:` the user types a key kwatch cannot know.
    if (known.values.some((v) => v.endsWith(':') && toComplete.startsWith(v))) return { candidates: [], directive: Directive.NoFileComp };
    // A value that goes on after it (`label:`) must not get a space.
    const c = fixed(known.values, toComplete, '');
    const goesOn = c.candidates.length > 0 && c.candidates.every((x) => x.value.endsWith(':'));
    return goesOn ? { ...c, directive: c.directive | Directive.NoSpace } : c;
  }
  const fromCluster = clusterValues(flag.name, parsed.target, sources);
  if (fromCluster) return fixed(await quietly(fromCluster), toComplete, '');
  // cobra's default for a flag that registers nothing: file names (--kubeconfig, --with, --record, …).
  return { candidates: [], directive: Directive.Default };
}

function clusterValues(name: string, target: TargetFlags, sources: CandidateSources): Promise<string[]> | undefined {
  switch (name) {
    case 'namespace':
      return sources.namespaces(target);
    case 'context':
      return sources.kubeconfigNames(target, 'contexts');
    case 'cluster':
      return sources.kubeconfigNames(target, 'clusters');
    case 'user':
      return sources.kubeconfigNames(target, 'users');
    case 'explain':
      return sources.resources(target);
  }
  return undefined;
}

async function positional(cmd: ManifestCommand, parsed: Parsed, toComplete: string, sources: CandidateSources): Promise<Completion> {
  const argDefs = Object.values(cmd.args);
  const arg = argDefs[parsed.positionals.length];
  if (!arg) return { candidates: [], directive: Directive.NoFileComp };
  if (arg.options?.length) return fixed(arg.options, toComplete, '');
  if (RESOURCE_ARGS.has(arg.name)) {
    // A recording file is a valid `replay` target too: let the shell offer file names beside the types.
    const files = arg.name === 'target' ? Directive.Default : Directive.NoFileComp;
    const slash = toComplete.indexOf('/');
    if (slash !== -1) {
      // TYPE/NAME: names of that type, kept behind their type.
      const type = toComplete.slice(0, slash);
      return fixed(await quietly(sources.names(parsed.target, type)), toComplete.slice(slash + 1), `${type}/`);
    }
    const cut = toComplete.lastIndexOf(',') + 1;
    const done = toComplete.slice(0, cut);
    const c = fixed(await quietly(sources.resources(parsed.target)), toComplete.slice(cut), done);
    return { ...c, directive: files };
  }
  if (arg.name === NAME_ARG) {
    const type = parsed.positionals[0];
    if (!type || type.includes(',') || type.includes('/')) return { candidates: [], directive: Directive.NoFileComp };
    return fixed(await quietly(sources.names(parsed.target, type)), toComplete, '');
  }
  return { candidates: [], directive: Directive.Default };
}

/** Candidates from a list, those that start with the typed word, shown with what comes before them. */
function fixed(values: readonly string[], typed: string, prefix: string): Completion {
  const candidates = values.filter((v) => v.startsWith(typed)).map((v) => ({ value: prefix + v }));
  return { candidates, directive: Directive.NoFileComp };
}

/** A source that fails offers nothing (as kubectl's __complete prints nothing on errors). */
async function quietly(p: Promise<string[]>): Promise<string[]> {
  try {
    return await p;
  } catch {
    return [];
  }
}
