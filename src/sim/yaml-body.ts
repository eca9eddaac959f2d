// Request bodies in YAML (application/yaml objects, application/apply-patch+yaml apply configurations), read into the
// same JSON values kube gets from sigs.k8s.io/yaml: YAML 1.1 scalars (go-yaml v2), JSON being a subset of it.
import { parseDocument } from 'yaml';

export class YamlBodyError extends Error {}

/** The body's one document as a JSON value; YamlBodyError (the parser's own words) when it is not YAML. */
export function parseYamlBody(text: string): unknown {
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false, intAsBigInt: false });
  if (doc.errors.length > 0) throw new YamlBodyError(doc.errors[0].message.split('\n')[0]);
  // Mapping keys that are not strings (YAML 1.1 `on:`, `1:`) become their JSON text, as sigs.k8s.io/yaml converts them.
  try {
    return doc.toJS({ maxAliasCount: 100, mapAsMap: false });
  } catch (err) {
    // Too many aliases (a "billion laughs" body): go-yaml refuses it while decoding ("document contains excessive
    // aliasing"), so kube answers the 400 of any other bad YAML, not a 500.
    throw new YamlBodyError((err as Error).message);
  }
}
