// kwatch cache-size: what an informer's cache of one resource costs, and what each transform would save.
import { Args, Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { UserError } from '../cli/user-error.js';
import { displayName, requireVerb, targetFor } from '../cli/target.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../cli/discovery-flags.js';
import { printWarning } from '../cli/warning.js';

const OUTPUTS = ['table', 'json', 'ndjson'];

export default class CacheSize extends KwatchCommand {
  static override summary = "Show what an informer's cache of a resource costs: bytes served, in kwatch's cache, as client-go would hold them, and what each transform saves.";
  static override description = `Lists the resource page by page, as an informer's first list does, and weighs the objects: the bytes the server sent (measured), the objects as JSON and the share of metadata.managedFields (measured), the V8 heap kwatch's cache keeps for them with managedFields stripped, its default (measured after a forced GC), and the Go heap client-go would keep with no transform (estimated: the objects as unstructured maps, by Go's allocation sizes; a typed informer holds less). Then the same numbers under each transform (strip-managed-fields, metadata-only, and fields=PATH,… with --transform), and the largest objects and namespaces.`;
  static override examples = [
    '<%= config.bin %> cache-size pods -A --sim',
    '<%= config.bin %> cache-size pods -A --transform metadata-only --transform fields=spec.nodeName,status.phase',
    '<%= config.bin %> cache-size configmaps -n kube-system -o json',
  ];
  static override args = {
    resource: Args.string({ description: 'Resource type: pods, po, deployments.apps, foos.example.com, …', required: true }),
  };
  static override flags = {
    ...discoveryFlags,
    transform: Flags.string({ description: 'A transform to weigh: strip-managed-fields, metadata-only or fields=PATH,… (repeatable; default: strip-managed-fields and metadata-only).', multiple: true }),
    'page-size': Flags.integer({ description: 'Items per page (the limit parameter); 0 = one unpaged request.', default: 500, min: 0, aliases: ['chunk-size'] }),
    top: Flags.integer({ description: 'How many of the largest objects and namespaces to show.', default: 5, min: 0, max: 1000 }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CacheSize);
    const output = flags.output ?? 'table';
    if (!OUTPUTS.includes(output)) throw new UserError(`--output ${output} is not available for cache-size: use table, json or ndjson`);
    const { parseCacheTransform, TransformSpecError, METADATA_ONLY } = await import('../informer/cache-transforms.js');
    let transforms;
    try {
      transforms = flags.transform ? flags.transform.map(parseCacheTransform) : [METADATA_ONLY];
    } catch (err) {
      if (err instanceof TransformSpecError) throw new UserError(err.message);
      throw err;
    }
    const conn = await this.connect(flags);
    const { resolveResources } = await import('../kube/discovery/resolve-resource.js');
    const resources = await resolveResources(conn, args.resource, discoveryOptionsFromFlags(flags, printWarning));
    if (resources.length > 1) throw new UserError(`"${args.resource}" names ${resources.length} resources (${resources.map(displayName).join(', ')}): cache-size takes one`);
    const resource = resources[0];
    requireVerb(resource, 'list');
    const target = targetFor(resource, conn, flags);
    this.noteTarget(target);
    const { HttpListerWatcher } = await import('../kube/lister-watchers/http-lister-watcher.js');
    const { FirstContactListerWatcher } = await import('../kube/lister-watchers/first-contact-lister-watcher.js');
    const { FirstContact } = await import('../kube/http/first-contact.js');
    // managedFields are weighed, so the objects are decoded whole.
    const lw = new FirstContactListerWatcher(new HttpListerWatcher(conn, target), new FirstContact(this.firstContactOptions()), displayName(resource));
    const { startSpinner } = await import('../render/spinner.js');
    const spinner = startSpinner(process.stderr, `listing ${displayName(resource)}…`);
    const { measureCacheSize } = await import('../kube/pipelines/cache-size.js');
    const report = await measureCacheSize(lw, {
      pageSize: flags['page-size'],
      transforms,
      top: flags.top,
      onPage: (row) => spinner.update(`listing ${displayName(resource)}: page ${row.page}, ${row.items} items`),
    }).finally(() => spinner.stop());
    const { formatCacheSize, cacheSizeLines } = await import('../cli/cache-size-view.js');
    if (output === 'json') process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (output === 'ndjson') process.stdout.write(cacheSizeLines(report));
    else {
      const { shouldColor } = await import('../render/color.js');
      const scope = !resource.namespaced ? '' : target.namespace ? ` in namespace ${target.namespace}` : ' in all namespaces';
      process.stdout.write(formatCacheSize(report, `${displayName(resource)}${scope}`, { color: shouldColor(process.stdout, process.env) }));
    }
  }
}
