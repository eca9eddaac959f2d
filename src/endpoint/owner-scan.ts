// An object's owner references, read from the bytes it was sent in when something first asks for them (a write's
// likely triggers): a watch event's scan stops at its identity, and walking on to its owners for every event cost
// about as much again (its labels and annotations walked too), for owners that most events are never asked for.
import { JsonScanError, KnownStrings, members, skipSpace, STOP, valueEnd } from './json-scan.js';

const EVENT_MEMBERS = new KnownStrings(['object']);
const OBJECT_MEMBERS = new KnownStrings(['metadata']);
const METADATA_MEMBERS = new KnownStrings(['ownerReferences', 'managedFields']);

/**
 * metadata.ownerReferences as sent (its JSON) of a watch event's object, the line `b`; null when its metadata has
 * none. Undefined when the bytes do not say: managedFields came first (kube writes it last, but owners may follow it
 * in another server's order; as the scan did before, such an object is decoded), bytes that are not JSON.
 * The caller then decodes the object whole (as it does for a list item's owners, which lists rarely need).
 */
export function eventOwnerReferencesJson(b: Buffer): string | null | undefined {
  try {
    let start: number | undefined;
    members(b, skipSpace(b, 0), (_object, s) => { start = s; return STOP; }, EVENT_MEMBERS);
    if (start === undefined) return undefined;
    let found: string | null | undefined = null;
    members(b, start, (_metadata, s) => {
      if (b[s] !== 0x7b) return STOP;
      members(b, s, (k, vs) => {
        if (k === 'managedFields') found = undefined;
        else found = b.toString('utf8', vs, valueEnd(b, vs));
        return STOP;
      }, METADATA_MEMBERS);
      return STOP;
    }, OBJECT_MEMBERS);
    return found;
  } catch (err) {
    if (err instanceof JsonScanError) return undefined;
    throw err;
  }
}
