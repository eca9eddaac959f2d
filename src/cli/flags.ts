// Global flags, defined once and spelled as kubectl spells them; every command gets them as baseFlags.
import { Flags, type Interfaces } from '@oclif/core';
import { OUTPUT_FORMATS } from './output-formats.js';
import { TEMPLATE_FORMATS } from '../render/template-formats.js';
import { UserError } from './user-error.js';
import { KUBE_VERSIONS } from '../sim/kube-version.js';

export { OUTPUT_FORMATS, type OutputFormat } from './output-formats.js';

/** The most pods (and nodes) the embedded server generates, as the README promises. */
export const MAX_SIM_PODS = 100_000;
export const MAX_SIM_NODES = 5_000;
/** The most changes per second the sim's generator makes and still answers requests in milliseconds (measured: at 20k/s a GET took 5 s). */
export const MAX_SIM_CHURN = 5_000;
/** Changes per second of a sim's workload when not given: one default for `kwatch sim --churn` and `--sim-churn`. */
export const DEFAULT_SIM_CHURN = 2;

/**
 * An integer flag checked at parse time against its range: a value outside is one line naming the flag and the range
 * (`invalid argument "-1" for "--port" flag: expected an integer from 0 to 65535`), never a value that reaches code.
 */
interface RangedIntegerOptions {
  description: string;
  default?: number;
  char?: 'v';
  helpGroup?: string;
}
export function rangedInteger(min: number, max: number, o: RangedIntegerOptions & { default: number }): Interfaces.OptionFlag<number>;
export function rangedInteger(min: number, max: number, o: RangedIntegerOptions): Interfaces.OptionFlag<number | undefined>;
export function rangedInteger(min: number, max: number, o: RangedIntegerOptions): Interfaces.OptionFlag<number | undefined> {
  return Flags.integer({
    ...o,
    parse: async (input: string) => {
      const n = /^-?\d+$/.test(input.trim()) ? Number(input) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < min || n > max) throw new Error(`Expected an integer from ${min} to ${max} but received: ${input}`);
      return n;
    },
  });
}

/** A decimal number flag (a rate, a factor) given as text: its value, or a one-line error naming the flag and the range. */
export function numberInRange(text: string, flag: string, min: number, max: number, what: string): number {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(n) || n < min || n > max) throw new UserError(`invalid ${flag} "${text}": use a number from ${min} to ${max} (${what})`);
  return n;
}

/**
 * `--wire json|protobuf|cbor`: what kwatch's own list and watch requests ask for. protobuf asks as client-go's protobuf
 * content config does, cbor as its ClientsPreferCBOR does, each with JSON as the fallback (custom resources are never
 * protobuf; a server without CBOR serving answers JSON).
 */
export const wireFlag = {
  wire: Flags.string({ description: 'What kwatch asks the server for: json; protobuf (application/vnd.kubernetes.protobuf, as client-go\'s protobuf clients; watches as ;stream=watch) with JSON as the fallback, which custom resources always get; or cbor (application/cbor, KEP-4222; watches as application/cbor-seq) with JSON as the fallback where the server does not serve CBOR (kube-apiserver with --feature-gates CBORServingAndStorage=true does). An http response record answered in CBOR or protobuf carries its contentType.', options: ['json', 'protobuf', 'cbor'], default: 'json' }),
};

export const globalFlags = {
  kubeconfig: Flags.string({ description: 'Path to the kubeconfig file to use (default: $KUBECONFIG, then ~/.kube/config).', helpGroup: 'GLOBAL' }),
  context: Flags.string({ description: 'The name of the kubeconfig context to use.', helpGroup: 'GLOBAL' }),
  cluster: Flags.string({ description: 'The name of the kubeconfig cluster to use.', helpGroup: 'GLOBAL' }),
  user: Flags.string({ description: 'The name of the kubeconfig user to use.', helpGroup: 'GLOBAL' }),
  namespace: Flags.string({ char: 'n', description: 'If present, the namespace scope for this request (default: the context\'s namespace).', helpGroup: 'GLOBAL' }),
  'all-namespaces': Flags.boolean({ char: 'A', description: 'Across all namespaces (without -A or -n: the context\'s namespace, for every command).', default: false, helpGroup: 'GLOBAL' }),
  selector: Flags.string({ char: 'l', description: 'Label selector to filter on, e.g. -l app=web,tier!=db.', helpGroup: 'GLOBAL' }),
  'field-selector': Flags.string({ description: 'Field selector to filter on, e.g. --field-selector spec.nodeName=node-001.', helpGroup: 'GLOBAL' }),
  'request-timeout': Flags.string({ description: 'How long to wait for a single server request (e.g. 5s, 1m; 0 = no timeout). Also how long the first contact with a failing server (5xx, 429, connection refused) is retried before giving up (default 30s).', default: '0', helpGroup: 'GLOBAL' }),
  'max-object-size': Flags.string({ description: 'The largest single object accepted from the server: one watch event line, one list item (e.g. 64Mi, 1Gi). A larger one fails its request instead of growing the memory without bound.', default: '64Mi', helpGroup: 'GLOBAL' }),
  output: Flags.string({ char: 'o', description: `Output format: ${OUTPUT_FORMATS.join('|')} (commands accept a subset); list, index and events also take kubectl's ${TEMPLATE_FORMATS.map((f) => `${f}=…`).join(', ')}.`, helpGroup: 'GLOBAL' }),
  v: rangedInteger(0, 10, { char: 'v', description: 'Log level for diagnostics on stderr (0-9; 6-9: the request log).', default: 0, helpGroup: 'GLOBAL' }),
  sim: Flags.boolean({ description: 'Run against an embedded simulated cluster started in-process on a random loopback port (no kubeconfig needed).', default: false, helpGroup: 'GLOBAL' }),
  'sim-pods': rangedInteger(0, MAX_SIM_PODS, { description: `With --sim: number of pods to generate (0 to ${MAX_SIM_PODS}).`, default: 30, helpGroup: 'SIM' }),
  'sim-nodes': rangedInteger(0, MAX_SIM_NODES, { description: `With --sim: number of nodes to generate (0 to ${MAX_SIM_NODES}).`, default: 3, helpGroup: 'SIM' }),
  'sim-churn': Flags.string({ description: `With --sim: changes per second, from the first watch (0 = static cluster; up to ${MAX_SIM_CHURN}).`, default: String(DEFAULT_SIM_CHURN), helpGroup: 'SIM' }),
  'sim-seed': Flags.integer({ description: 'With --sim: seed for the deterministic workload.', default: 1, helpGroup: 'SIM' }),
  // No default here: given without --sim it is a one-line error (it cannot change a real cluster's version).
  'kube-version': Flags.string({ description: `With --sim: the Kubernetes release the embedded server serves, as \`kwatch sim --kube-version\` (default the newest). One of ${KUBE_VERSIONS.join(', ')}.`, options: [...KUBE_VERSIONS], helpGroup: 'SIM' }),
  'feature-gates': Flags.string({ description: 'With --sim: feature gates over the release\'s defaults, as kube-apiserver takes them: NAME=true|false,… (WatchList, CBORServingAndStorage).', helpGroup: 'SIM' }),
};

export type GlobalFlags = {
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  'all-namespaces': boolean;
  selector?: string;
  'field-selector'?: string;
  'request-timeout': string;
  'max-object-size'?: string;
  output?: string;
  v: number;
  sim: boolean;
  'sim-pods': number;
  'sim-nodes': number;
  'sim-churn': string;
  'sim-seed': number;
  'kube-version'?: string;
  'feature-gates'?: string;
};
