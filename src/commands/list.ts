// kwatch list: a paged LIST as a debugging view — one row per page, its continue token decoded.
import { Args, Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { startTraceOut, traceOutFlags } from '../cli/trace-out.js';
import { UserError } from '../cli/user-error.js';
import { objectName, showOrSkipTooDeep } from '../cli/too-deep.js';
import type { KubeObject } from '../informer/types.js';
import { displayName, requireVerb, targetFor } from '../cli/target.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../cli/discovery-flags.js';
import { printWarning } from '../cli/warning.js';
import { escapeForTerminal } from '../render/terminal-escape.js';
import { TEMPLATE_OUTPUT_HELP, templateFromOutput } from '../cli/output-template.js';
import type { ExpiredContinue, PagedListResult } from '../kube/lister-watchers/paged-list.js';
import type { WireFormat } from '../kube/lister-watchers/http-lister-watcher.js';
import { wireFlag } from '../cli/flags.js';

const OBJECT_OUTPUTS = ['json', 'yaml', 'name', 'ndjson'] as const;
type ObjectOutputFormat = (typeof OBJECT_OUTPUTS)[number];

export default class List extends KwatchCommand {
  static override summary = 'List a resource page by page and show each page: items, bytes, latency, continue token, remaining count.';
  static override description = `Sends the LIST requests a client sends for a paged list (limit + continue) and prints one row per page: PAGE, ITEMS, BYTES, MS, CONTINUE (the token decoded when it is the API server's standard form: the revision the list is pinned to and the key the next page starts after) and REMAINING (remainingItemCount), then the totals and the list's resourceVersion. With -o json|yaml|name|ndjson it prints the objects instead, and with kubectl's template outputs (-o jsonpath=…, jsonpath-file=FILE, custom-columns=…, custom-columns-file=FILE, go-template=…, go-template-file=FILE) what kubectl get prints for the same objects.

When a continue token expires mid-list (the server compacted the snapshot the first page was read at, HTTP 410) kwatch explains what happened; --on-expired picks what to do: restart the list, continue inconsistently with the fresh token the server sent, or fail (the default).

--compare-watch-list fetches the same collection by paged LIST and by watch-list (a watch with sendInitialEvents=true) and reports requests, bytes, time and peak heap side by side.`;
  static override examples = [
    '<%= config.bin %> list pods -A --sim',
    '<%= config.bin %> list pods -A --page-size 7',
    '<%= config.bin %> list pods --page-size 100 --on-expired inconsistent',
    '<%= config.bin %> list pods --rv 12345 --rv-match Exact --page-size 0',
    '<%= config.bin %> list pods -A --compare-watch-list',
    '<%= config.bin %> list deployments.apps -n shop -o yaml',
    `<%= config.bin %> list pods -A -o jsonpath='{range .items[*]}{.metadata.name}{"\\t"}{.spec.nodeName}{"\\n"}{end}'`,
  ];
  static override args = {
    resource: Args.string({ description: 'Resource type: pods, po, deployments.apps, foos.example.com, …', required: true }),
  };
  static override flags = {
    ...discoveryFlags,
    ...traceOutFlags,
    ...wireFlag,
    'page-size': Flags.integer({ description: 'Items per page (the limit parameter); 0 = one unpaged request.', default: 500, min: 0, aliases: ['chunk-size'] }),
    rv: Flags.string({ description: 'resourceVersion of the first request (unset = the most recent state; 0 = any state the server has).' }),
    'rv-match': Flags.string({ description: 'resourceVersionMatch of the first request.', options: ['NotOlderThan', 'Exact'] }),
    'on-expired': Flags.string({ description: 'What to do when a continue token expires mid-list.', options: ['restart', 'inconsistent', 'fail'], default: 'fail' }),
    'compare-watch-list': Flags.boolean({ description: 'Fetch the collection by paged LIST and by watch-list and compare time, bytes and peak heap.', default: false }),
    'show-secrets': Flags.boolean({ description: 'Print Secret data and tokens as the server sent them (masked by default).', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(List);
    const output = flags.output ?? 'table';
    const template = await templateFromOutput(output);
    if (output !== 'table' && !template && !(OBJECT_OUTPUTS as readonly string[]).includes(output)) {
      throw new UserError(`--output ${output} is not available for list: use table (the page view), ${OBJECT_OUTPUTS.join(', ')}, ${TEMPLATE_OUTPUT_HELP}`);
    }
    const { Tracer } = await import('../informer/trace.js');
    const tracer = new Tracer();
    await startTraceOut(flags, tracer, `list ${args.resource}`, (fn) => this.onCleanup(fn));
    const conn = await this.connect(flags, { tracer });
    const { resolveResources } = await import('../kube/discovery/resolve-resource.js');
    const resources = await resolveResources(conn, args.resource, discoveryOptionsFromFlags(flags, printWarning));
    if (resources.length > 1) throw new UserError(`"${args.resource}" names ${resources.length} resources (${resources.map(displayName).join(', ')}): list takes one`);
    const resource = resources[0];
    requireVerb(resource, 'list');
    const { HttpListerWatcher } = await import('../kube/lister-watchers/http-lister-watcher.js');
    const target = targetFor(resource, conn, flags);
    this.noteTarget(target);
    const { FirstContactListerWatcher } = await import('../kube/lister-watchers/first-contact-lister-watcher.js');
    const { FirstContact } = await import('../kube/http/first-contact.js');
    // A failing server is retried (visibly, until the deadline) only until its first answer, as in every command.
    // The page view and -o name never show an object's fields: managedFields (often half its bytes) are cut
    // from the text before JSON.parse. json, yaml and ndjson print the objects as the server sent them.
    const showsObjects = output !== 'table' && output !== 'name';
    const firstContact = new FirstContact(this.firstContactOptions());
    const lw = new FirstContactListerWatcher(new HttpListerWatcher(conn, target, { omitManagedFields: !showsObjects && !flags['compare-watch-list'], wire: flags.wire as WireFormat }), firstContact, displayName(resource));
    const { startSpinner } = await import('../render/spinner.js');

    if (flags['compare-watch-list']) {
      requireVerb(resource, 'watch');
      const spinner = startSpinner(process.stderr, `fetching ${displayName(resource)} by paged LIST and by watch-list…`);
      const { compareWatchList } = await import('../kube/pipelines/compare-watch-list.js');
      const rows = await compareWatchList(lw, { pageSize: flags['page-size'] }).finally(() => spinner.stop());
      const { formatComparison } = await import('../cli/list-view.js');
      const { shouldColor } = await import('../render/color.js');
      process.stdout.write(formatComparison(rows, { color: shouldColor(process.stdout, process.env) }));
      return;
    }

    const spinner = startSpinner(process.stderr, `listing ${displayName(resource)}…`);
    const { pagedList, ContinueExpiredError, explainExpiredContinue } = await import('../kube/lister-watchers/paged-list.js');
    let result: PagedListResult;
    try {
      result = await pagedList(lw, {
        pageSize: flags['page-size'],
        resourceVersion: flags.rv,
        resourceVersionMatch: flags['rv-match'] as 'NotOlderThan' | 'Exact' | undefined,
        onExpired: flags['on-expired'] as 'restart' | 'inconsistent' | 'fail',
        onPage: (row) => spinner.update(`listing ${displayName(resource)}: page ${row.page}, ${row.items} items`),
        onTokenExpired: (e: ExpiredContinue) => {
          spinner.stop();
          if (e.decision !== 'fail') process.stderr.write(`${escapeForTerminal(explainExpiredContinue(e), { multiline: true })}\n→ ${e.decision === 'restart' ? 'restarting the list (--on-expired restart)' : 'continuing with the fresh token (--on-expired inconsistent)'}\n`);
        },
      });
    } catch (err) {
      spinner.stop();
      if (err instanceof ContinueExpiredError) {
        if (output === 'table') process.stdout.write(await pageTable(err.partial, err.partial.items.length));
        process.stderr.write(`${escapeForTerminal(explainExpiredContinue(err.expired), { multiline: true })}\n`);
        throw new UserError(err.message);
      }
      throw err;
    }
    spinner.stop();
    if (output === 'table') {
      process.stdout.write(await pageTable(result, result.items.length));
      return;
    }
    const { printObjects } = await import('../render/objects.js');
    // Secret values and credentials can only show where the objects' fields do (-o name prints names alone).
    const { maskSecrets } = await import('../render/secrets.js');
    // One object nested deeper than kwatch follows is one line on stderr and left out; the others print, exit 1.
    const items = showsObjects ? result.items.flatMap((o) => maskedOrSkipped(o, (x) => maskSecrets(x, { reveal: flags['show-secrets'] }))) : result.items;
    if (items.length < result.items.length) process.exitCode = 1;
    if (template) {
      // kubectl get -o jsonpath|go-template|custom-columns: the template over the List of the objects.
      const { listOf } = await import('../render/objects.js');
      process.stdout.write(template.document(listOf(items, result.resourceVersion ?? '')));
      return;
    }
    const n = printObjects(items, { output: output as ObjectOutputFormat, stream: process.stdout, listResourceVersion: result.resourceVersion ?? '' });
    if (n === 0 && (output === 'name' || output === 'ndjson')) process.stderr.write(noResources(resource.namespaced, flags['all-namespaces'], flags.namespace ?? conn.namespace));
  }
}

async function pageTable(result: PagedListResult, items: number): Promise<string> {
  const { formatPageTable } = await import('../cli/list-view.js');
  const { shouldColor } = await import('../render/color.js');
  return formatPageTable(result, items, { color: shouldColor(process.stdout, process.env) });
}

function maskedOrSkipped(obj: KubeObject, mask: (o: KubeObject) => KubeObject): KubeObject[] {
  let out: KubeObject[] = [];
  showOrSkipTooDeep(objectName(obj), () => (out = [mask(obj)]));
  return out;
}

function noResources(namespaced: boolean, all: boolean, namespace: string): string {
  return namespaced && !all ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n';
}
