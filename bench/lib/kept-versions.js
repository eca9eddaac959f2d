// What any endpoint that keeps what its client was sent must do per watch event, and nothing else (issue 43's replay
// floor; keeping-relay.js, keeping-proxy.js): find each line of the body, read its object's identity (namespace/name,
// uid, resourceVersion), and keep one owned copy of the line (a latin1 string, as the endpoint keeps one) as that
// object's newest version in a Map. The identity is read with indexOf from the object's metadata (kube writes name,
// namespace, uid and resourceVersion first), the cheapest read there is, not a JSON walk: the floor, not a parser.

const NEWLINE = 0x0a;
const METADATA = Buffer.from('"metadata":{');
const FIELDS = [['name', Buffer.from('"name":"')], ['namespace', Buffer.from('"namespace":"')], ['uid', Buffer.from('"uid":"')], ['rv', Buffer.from('"resourceVersion":"')]];

/** The identity of the object in `line[from, to)`, read from its metadata; undefined when it has none. */
function identityOf(line, from, to) {
  const m = line.indexOf(METADATA, from);
  if (m < 0 || m >= to) return undefined;
  const id = {};
  for (const [field, key] of FIELDS) {
    const at = line.indexOf(key, m);
    if (at < 0 || at >= to) continue;
    const start = at + key.length;
    id[field] = line.toString('latin1', start, line.indexOf(0x22, start));
  }
  return id.name === undefined ? undefined : id;
}

/** namespace/name → its newest version ({ uid, rv, json }: the line, owned), and how many events were kept. */
export function keptVersions() {
  const kept = new Map();
  let events = 0;
  return {
    kept,
    events: () => events,
    /** Keeps the event in `b[from, to)` (a view, valid during the call only). */
    keep(b, from, to) {
      const id = identityOf(b, from, to);
      if (!id) return;
      const key = id.namespace === undefined ? id.name : `${id.namespace}/${id.name}`;
      kept.set(key, { uid: id.uid, rv: id.rv, json: b.toString('latin1', from, to) });
      events++;
    },
  };
}

/** A body's lines, from its pieces as they come: each to `line(b, from, to)` (a view valid during the call). */
export function lineReader(line) {
  let carry; // the start of a line split across pieces
  return {
    push(b, from = 0, to = b.length) {
      let at = from;
      for (let nl = b.indexOf(NEWLINE, at); nl >= 0 && nl < to; nl = b.indexOf(NEWLINE, at)) {
        if (carry) {
          const whole = Buffer.concat([carry, b.subarray(at, nl + 1)]);
          carry = undefined;
          line(whole, 0, whole.length);
        } else if (nl > at) line(b, at, nl + 1);
        at = nl + 1;
      }
      if (at < to) carry = carry ? Buffer.concat([carry, b.subarray(at, to)]) : Buffer.from(b.subarray(at, to));
    },
    /** The body ended: a piece of line left over is dropped. */
    reset() { carry = undefined; },
  };
}
