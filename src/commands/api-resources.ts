// kwatch api-resources: what `kubectl api-resources` prints, through the discovery cache shared with kubectl.
import { Flags } from '@oclif/core';
import { KwatchCommand } from '../cli/base-command.js';
import { UserError } from '../cli/user-error.js';
import { apiResourcesTable, listApiResources, type ApiResourceRow } from '../kube/discovery/api-resources.js';
import { discoveryFlags, discoveryOptionsFromFlags } from '../cli/discovery-flags.js';
import { printWarning } from '../cli/warning.js';
import { formatColumns } from '../render/columns.js';

export default class ApiResources extends KwatchCommand {
  static override summary = 'Print the supported API resources on the server (as kubectl api-resources does).';
  static override description =
    'Lists every resource type the server serves, from discovery, in the same columns, order and spacing as `kubectl api-resources`. Discovery goes through the disk cache kubectl uses ($KUBECACHEDIR or ~/.kube/cache); without --cached the server is always asked and the cache rewritten.';
  static override examples = [
    '<%= config.bin %> api-resources --sim',
    '<%= config.bin %> api-resources -o wide --api-group apps',
    '<%= config.bin %> api-resources --namespaced=false --verbs list,watch',
    '<%= config.bin %> api-resources --cached -o name',
  ];
  static override flags = {
    ...discoveryFlags,
    'api-group': Flags.string({ description: 'Limit to resources in the specified API group ("" = the core group).' }),
    namespaced: Flags.string({ description: 'true: only namespaced resources; false: only cluster-scoped ones.', options: ['true', 'false'] }),
    verbs: Flags.string({ description: 'Limit to resources that support all the specified verbs (comma-separated).' }),
    categories: Flags.string({ description: 'Limit to resources that belong to all the specified categories (comma-separated).' }),
    'sort-by': Flags.string({ description: "Sort by 'name' or 'kind' (default: by API group, then name).", options: ['name', 'kind'] }),
    cached: Flags.boolean({ description: 'Use the cached list of resources if available.', default: false }),
    'no-headers': Flags.boolean({ description: "Don't print headers.", default: false }),
  };

  async run(): Promise<{ resources: ApiResourceRow[]; failed: Record<string, string> }> {
    const { flags } = await this.parse(ApiResources);
    const output = flags.output ?? 'table';
    if (!['table', 'wide', 'name', 'json'].includes(output)) throw new UserError(`--output ${output} is not available for api-resources: use wide, name or json`);
    const conn = await this.connect(flags);
    const list = (v?: string) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);
    const { rows, failed } = await listApiResources(conn, {
      ...discoveryOptionsFromFlags(flags, printWarning),
      apiGroup: flags['api-group'],
      namespaced: flags.namespaced === undefined ? undefined : flags.namespaced === 'true',
      verbs: list(flags.verbs),
      categories: list(flags.categories),
      sortBy: flags['sort-by'] as 'name' | 'kind' | undefined,
      cached: flags.cached,
    });
    const result = { resources: rows, failed };
    if (output === 'json') {
      this.log(JSON.stringify(result, null, 2));
    } else {
      const t = apiResourcesTable(rows, output as 'table' | 'wide' | 'name');
      process.stdout.write(formatColumns(flags['no-headers'] ? null : t.headers, t.cells));
    }
    // kubectl reports undiscoverable group-versions after the table, and fails.
    const gvs = Object.entries(failed);
    if (gvs.length) throw new UserError(`unable to retrieve the complete list of server APIs: ${gvs.map(([gv, why]) => `${gv}: ${why}`).join(', ')}`);
    return result;
  }
}
