// Resource-name resolution like kubectl's REST mapper (DeferredDiscoveryRESTMapper + ShortcutExpander
// + CategoryExpander) over one discovery snapshot, recording each step so `--explain` can show it.
import { topLevelResources, type DiscoverySnapshot } from './discovery-client.js';
import type { APIResource } from './discovery-types.js';

export interface ResolvedResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  singular: string;
  categories: string[];
  /** Where the entry came from, e.g. "cache apps/v1/serverresources.json" or "aggregated /apis". */
  source: string;
}

export interface Resolution {
  input: string;
  /** One resource, or several when the input was a category such as `all`. */
  resources: ResolvedResource[];
  /** How the input was resolved, step by step. */
  steps: string[];
  category?: string;
}

interface Entry {
  group: string;
  version: string;
  preferred: boolean;
  res: APIResource;
  source: string;
}

/**
 * Every top-level resource (no subresources) in the PriorityRESTMapper's order: the preferred
 * version of every group (groups in server order), then every other version.
 */
function entries(snap: DiscoverySnapshot): Entry[] {
  const out: Entry[] = [];
  for (const { group, groupVersion, version, res } of topLevelResources(snap)) {
    const preferred = group.preferredVersion?.version || group.versions?.[0]?.version;
    out.push({ group: group.name, version, preferred: version === preferred, res, source: snap.sources.get(groupVersion) ?? 'unknown' });
  }
  return [...out.filter((e) => e.preferred), ...out.filter((e) => !e.preferred)];
}

/** The singular form: singularName, or (old servers) the lower-cased kind, as client-go guesses. */
function singularOf(r: APIResource): string {
  return r.singularName || r.kind.toLowerCase();
}

function toResolved(e: Entry): ResolvedResource {
  return {
    group: e.group,
    version: e.version,
    resource: e.res.name,
    kind: e.res.kind,
    namespaced: Boolean(e.res.namespaced),
    verbs: e.res.verbs ?? [],
    shortNames: e.res.shortNames ?? [],
    singular: singularOf(e.res),
    categories: e.res.categories ?? [],
    source: e.source,
  };
}

const gr = (group: string, resource: string) => (group ? `${resource}.${group}` : resource);

/** Resolves one name against a snapshot; undefined when the server has no such resource type. */
export function resolveInSnapshot(snap: DiscoverySnapshot, input: string): Resolution | undefined {
  const all = entries(snap);
  const steps: string[] = [];

  // Categories first, as kubectl's builder expands them before mapping (e.g. `all`).
  if (!input.includes('.')) {
    const members: Entry[] = [];
    for (const e of all) {
      if (!(e.res.categories ?? []).includes(input)) continue;
      if (members.some((m) => m.group === e.group && m.res.name === e.res.name)) continue;
      members.push(e);
    }
    if (members.length) {
      steps.push(`"${input}" is a category: ${members.length} resources list it in their categories`);
      const resources = members.map((m) => {
        const best = mapResource(all, m.group, m.res.name, undefined)!;
        steps.push(`  ${gr(m.group, m.res.name)} → ${best.version} (${best.source})`);
        return toResolved(best);
      });
      return { input, resources, steps, category: input };
    }
  }

  // resource.version.group, when the input has two dots or more and such a version exists.
  const dots = input.split('.').length - 1;
  if (dots >= 2) {
    const [r, v, ...g] = input.split('.');
    const hit = mapResource(all, g.join('.'), r.toLowerCase(), v);
    if (hit) {
      steps.push(`"${input}" parsed as resource.version.group: resource "${r}", version "${v}", group "${g.join('.')}"`);
      steps.push(matchedBy(hit, r.toLowerCase()));
      return { input, resources: [toResolved(hit)], steps };
    }
    steps.push(`"${input}" is not resource.version.group (no version "${v}" of group "${g.join('.')}" serves "${r}")`);
  }

  // resource[.group]
  const dot = input.indexOf('.');
  let resource = (dot === -1 ? input : input.slice(0, dot)).toLowerCase();
  let group: string | undefined = dot === -1 ? undefined : input.slice(dot + 1);
  steps.push(group === undefined ? `"${input}" parsed as a resource name in any group` : `"${input}" parsed as resource.group: resource "${resource}", group "${group}"`);

  // ShortcutExpander: an exact plural/singular name wins over a short name.
  const inGroup = (e: Entry) => group === undefined || e.group === group;
  const exact = all.some((e) => inGroup(e) && (e.res.name === resource || singularOf(e.res) === resource));
  if (!exact) {
    const shorts = all.filter((e) => inGroup(e) && (e.res.shortNames ?? []).includes(resource));
    let expanded = shorts[0];
    if (!expanded && group) {
      // kubectl lets a group prefix match for short names (`deploy.app` → deployments.apps)
      expanded = all.find((e) => e.group.startsWith(group!) && (e.res.shortNames ?? []).includes(resource))!;
    }
    if (expanded) {
      steps.push(`"${resource}" is a short name of ${gr(expanded.group, expanded.res.name)} (${expanded.group || 'core'}/${expanded.version} entry, ${expanded.source})`);
      const others = [...new Set(shorts.filter((s) => s.group !== expanded.group || s.res.name !== expanded.res.name).map((s) => gr(s.group, s.res.name)))];
      for (const o of others) steps.push(`warning: short name "${resource}" could also match lower priority resource ${o}`);
      resource = expanded.res.name;
      group = expanded.group;
    }
  }

  const hit = mapResource(all, group, resource, undefined);
  if (!hit) return undefined;
  steps.push(matchedBy(hit, resource));
  const candidates = all.filter((e) => e.res.name === hit.res.name && e.group !== hit.group);
  if (group === undefined && candidates.length) steps.push(`also served by ${[...new Set(candidates.map((c) => gr(c.group, c.res.name)))].join(', ')}: group "${hit.group || 'core'}" comes first in discovery order`);
  return { input, resources: [toResolved(hit)], steps };
}

function matchedBy(e: Entry, name: string): string {
  const how = e.res.name === name ? 'plural name' : 'singular name (or kind)';
  const pref = e.preferred ? `preferred version ${e.version}` : `version ${e.version} (not the preferred version)`;
  return `matched ${gr(e.group, e.res.name)} by its ${how}, ${pref}, kind ${e.res.kind}, ${e.res.namespaced ? 'namespaced' : 'cluster-scoped'} — entry from ${e.source}`;
}

/** The mapper proper: plural or singular, in a group (or any group by priority), preferred version first. */
function mapResource(all: Entry[], group: string | undefined, resource: string, version: string | undefined): Entry | undefined {
  for (const e of all) {
    if (group !== undefined && e.group !== group) continue;
    if (version !== undefined && e.version !== version) continue;
    if (e.res.name === resource || singularOf(e.res) === resource) return e;
  }
  return undefined;
}
