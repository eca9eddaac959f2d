// The small helpers every part of reconcile shares to name objects and resources: an apiVersion's group, a
// cache key from namespace and name and back, and the one-line error of an unusable resource.
import { describe, expect, it } from 'vitest';
import { CatalogError, groupOf, objectKey, splitKey } from '../../src/reconcile/catalog.js';

describe('reconcile catalog helpers', () => {
  it('groupOf: the group of an apiVersion, "" for the core group or none', () => {
    expect(groupOf('apps/v1')).toBe('apps');
    expect(groupOf('networking.k8s.io/v1beta1')).toBe('networking.k8s.io');
    expect(groupOf('v1')).toBe('');
    expect(groupOf('')).toBe('');
    expect(groupOf(undefined)).toBe('');
    // Only the first slash separates the group.
    expect(groupOf('a/b/c')).toBe('a');
  });

  it('objectKey and splitKey: namespace/name for a namespaced object, the name alone for a cluster-scoped one', () => {
    expect(objectKey('default', 'web')).toBe('default/web');
    expect(objectKey(undefined, 'node-1')).toBe('node-1');
    expect(objectKey('', 'node-1')).toBe('node-1');
    expect(splitKey('default/web')).toEqual({ namespace: 'default', name: 'web' });
    expect(splitKey('node-1')).toEqual({ name: 'node-1' });
    expect('namespace' in splitKey('node-1')).toBe(false);
    // A name never holds a slash, but whatever follows the first one is the name.
    expect(splitKey('ns/a/b')).toEqual({ namespace: 'ns', name: 'a/b' });
    for (const key of ['default/web', 'node-1']) {
      const { namespace, name } = splitKey(key);
      expect(objectKey(namespace, name)).toBe(key);
    }
  });

  it('CatalogError is an Error named for what it is, carrying the one line the user sees', () => {
    const err = new CatalogError('no resource "foos"');
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('CatalogError');
    expect(err.message).toBe('no resource "foos"');
    expect(String(err)).toBe('CatalogError: no resource "foos"');
  });
});
