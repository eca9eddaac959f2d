// kube-apiserver decodes every resource.Quantity field of a built-in kind into its Go type and encodes it back, so what
// it stores is the quantity's canonical form (`cpu: 1000m` reads back `1`), and a string that is no quantity is a decode
// error. The fields are found from the kind's OpenAPI definitions (Quantity nodes of its field tree: containers'
// resources, every pod template, quotas, limit ranges, PVs, nodes…), compiled once per type into a tree of only the
// branches that lead to one. Custom resources keep what was sent, as in kube (their objects are unstructured JSON).
import type { ResourceType } from './registry.js';
import { fieldTree, QUANTITY_NODE, type FieldNode } from './openapi/field-tree.js';
import { boundedMemo } from './bounded-memo.js';
import { canonicalQuantity, QUANTITY_FORMAT_ERROR } from './kinds/quantity-canonical.js';

/** The branches of a field tree that reach a Quantity; `quantity` is a Quantity itself. */
type QuantityNode =
  | { k: 'quantity' }
  | { k: 'object'; fields: Map<string, QuantityNode> }
  | { k: 'map'; values: QuantityNode }
  | { k: 'list'; items: QuantityNode };

const QUANTITY: QuantityNode = { k: 'quantity' };

/** Pruned trees per field-tree node (shared definitions, e.g. PodSpec, are pruned once); null: no Quantity below. */
const pruned = new WeakMap<FieldNode, QuantityNode | null>();

function prune(node: FieldNode, visiting: Set<FieldNode>): QuantityNode | null {
  if (node === QUANTITY_NODE) return QUANTITY;
  if (node.k === 'any') return null;
  const known = pruned.get(node);
  if (known !== undefined) return known;
  // A definition that refers to itself (JSONSchemaProps) holds no Quantity on the way back.
  if (visiting.has(node)) return null;
  visiting.add(node);
  let out: QuantityNode | null = null;
  if (node.k === 'list') {
    const items = prune(node.items, visiting);
    out = items && { k: 'list', items };
  } else if (node.k === 'map') {
    const values = prune(node.values, visiting);
    out = values && { k: 'map', values };
  } else {
    const fields = new Map<string, QuantityNode>();
    for (const [name, child] of node.fields) {
      const p = prune(child, visiting);
      if (p) fields.set(name, p);
    }
    out = fields.size ? { k: 'object', fields } : null;
  }
  visiting.delete(node);
  pruned.set(node, out);
  return out;
}

const byType = new WeakMap<ResourceType, QuantityNode | null>();

function quantityTree(type: ResourceType): QuantityNode | null {
  let t = byType.get(type);
  if (t === undefined) {
    t = type.crd ? null : prune(fieldTree(type), new Set());
    byType.set(type, t);
  }
  return t;
}

/**
 * Rewrites, in place, every Quantity field of a built-in kind's object to what kube stores for it, and returns the
 * decoder's error for the first one that is no quantity (the object is then not to be stored).
 */
export function decodeQuantities(type: ResourceType, obj: object): string | undefined {
  const tree = quantityTree(type);
  return tree ? walk(obj, tree) : undefined;
}

function walk(value: unknown, node: QuantityNode): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (node.k === 'list') {
    if (!Array.isArray(value)) return undefined;
    for (let i = 0; i < value.length; i++) {
      const err = node.items.k === 'quantity' ? rewrite(value, i) : walk(value[i], node.items);
      if (err) return err;
    }
    return undefined;
  }
  if (Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    const child = node.k === 'map' ? node.values : node.k === 'object' ? node.fields.get(key) : undefined;
    if (!child) continue;
    // A null map value decodes as the zero Quantity ("0"); a null field is an absent one (omit-empty drops it).
    if (obj[key] === null) { if (node.k === 'map' && child.k === 'quantity') obj[key] = '0'; continue; }
    const err = child.k === 'quantity' ? rewrite(obj, key) : walk(obj[key], child);
    if (err) return err;
  }
  return undefined;
}

/** What each quantity string sent is stored as: writes send the same few ("100m", "128Mi"). */
const storedQuantity = boundedMemo(4096, canonicalQuantity);

/** Quantity's UnmarshalJSON reads a JSON string or number; any other JSON value is not of its format. */
function rewrite(holder: Record<string, unknown> | unknown[], key: string | number): string | undefined {
  const v = (holder as Record<string | number, unknown>)[key];
  if (v === null) return undefined;
  const q = typeof v === 'string' ? storedQuantity(v) : typeof v === 'number' ? canonicalQuantity(v) : { error: QUANTITY_FORMAT_ERROR };
  if ('error' in q) return q.error;
  (holder as Record<string | number, unknown>)[key] = q.value;
  return undefined;
}
