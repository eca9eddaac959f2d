// What a controller module exports → one normalised definition, or one line naming the file.
import { describe, expect, test } from 'vitest';
import { controllerShape, type ShapeContext } from '../../src/reconcile/controller-shape.js';
import { ControllerModuleError } from '../../src/reconcile/controller-module-error.js';
import { describeError } from '../../src/cli/error-message.js';

const where: ShapeContext = { display: 'ctrl.mjs', file: '/work/ctrl.mjs', defaultName: 'ctrl' };
const reconcile = async () => undefined;

function shapeError(exports: Record<string, unknown>, resource?: string): string {
  try {
    controllerShape(exports, { ...where, resource });
  } catch (err) {
    expect(err).toBeInstanceOf(ControllerModuleError);
    expect((err as ControllerModuleError).file).toBe('/work/ctrl.mjs');
    return (err as Error).message;
  }
  throw new Error('no error');
}

describe('normalising', () => {
  test('a plain named reconcile (and errorPolicy) takes RESOURCE as its primary resource and the file name as its name', () => {
    const errorPolicy = () => ({ requeue: true });
    const shape = controllerShape({ reconcile, errorPolicy }, { ...where, resource: 'pods' });
    expect(shape.name).toBe('ctrl');
    expect(shape.moduleFor).toBeUndefined();
    expect(shape.definition).toMatchObject({ name: 'ctrl', for: 'pods' });
    expect(shape.definition.errorPolicy).toBeTypeOf('function');
  });

  test("a default definition keeps its own name, for, owns and watches, and its methods keep `this`", async () => {
    const def = {
      name: 'scaler',
      for: 'deployments.apps',
      owns: ['replicasets.apps'],
      ownsAllOwners: true,
      watches: [{ resource: 'configmaps', map: () => [{ name: 'web' }] }],
      target: 3,
      reconcile() {
        return { requeueAfter: this.target };
      },
    };
    const shape = controllerShape({ default: def }, { ...where, resource: 'deploy' });
    expect(shape).toMatchObject({ name: 'scaler', moduleFor: 'deployments.apps', definition: { name: 'scaler', for: 'deployments.apps', owns: ['replicasets.apps'], ownsAllOwners: true } });
    expect(shape.definition.watches?.[0].resource).toBe('configmaps');
    expect(await shape.definition.reconcile({ name: 'web', reasons: [] }, {} as never)).toEqual({ requeueAfter: 3 });
  });

  test('a default function is the reconcile function (CommonJS module.exports = function)', () => {
    expect(controllerShape({ default: function named() {} }, { ...where, resource: 'pods' }).name).toBe('ctrl');
  });
});

describe('one line for a shape kwatch cannot use', () => {
  test('no reconcile, or a reconcile that is not a function', () => {
    const missing = 'ctrl.mjs: exports no reconcile function (export async function reconcile(req, ctx), or export default defineController({ for, reconcile }))';
    expect(shapeError({}, 'pods')).toBe(missing);
    expect(shapeError({ default: { name: 'x' } }, 'pods')).toBe(missing);
    expect(shapeError({ default: { for: 'pods' } })).toBe(missing);
    expect(shapeError({ default: { for: 'pods', reconcile: 'yes' } })).toBe('ctrl.mjs: reconcile is the string "yes", not a function');
  });

  test('owns, watches, errorPolicy, name and for of the wrong type', () => {
    const def = (extra: Record<string, unknown>) => ({ default: { for: 'deployments.apps', reconcile, ...extra } });
    expect(shapeError(def({ owns: 'replicasets.apps' }))).toBe(`ctrl.mjs: owns must be an array of resource names such as ['replicasets.apps'], got the string "replicasets.apps"`);
    expect(shapeError(def({ owns: ['pods', 3] }))).toBe(`ctrl.mjs: owns[1] must be a resource name such as 'replicasets.apps', or { resource: 'replicasets.apps', predicates: ['GenerationChanged'] }, got a number (3)`);
    expect(shapeError(def({ watches: { resource: 'configmaps' } }))).toBe(
      'ctrl.mjs: watches must be an array of { resource: string, map(obj) { return [{ namespace, name }] } }, got an object',
    );
    expect(shapeError(def({ watches: ['configmaps'] }))).toBe(
      'ctrl.mjs: watches[0] must be { resource: string, map(obj) { return [{ namespace, name }] } }, got the string "configmaps"',
    );
    expect(shapeError(def({ watches: [{ map: () => [] }] }))).toBe("ctrl.mjs: watches[0].resource must be a resource name such as 'configmaps', got undefined");
    expect(shapeError(def({ watches: [{ resource: 'configmaps', map: [] }] }))).toBe(
      'ctrl.mjs: watches[0].map must be a function from the watched object to the primary objects to reconcile, got an array',
    );
    expect(shapeError(def({ errorPolicy: { requeue: true } }))).toBe('ctrl.mjs: errorPolicy is an object, not a function');
    expect(shapeError(def({ name: '' }))).toBe('ctrl.mjs: name must be a non-empty string, got an empty string');
    expect(shapeError({ default: { for: ['pods'], reconcile } })).toBe("ctrl.mjs: for must be a resource name such as 'deployments.apps', got an array");
    expect(shapeError(def({ ownsAllOwners: 'yes' }))).toBe('ctrl.mjs: ownsAllOwners must be true or false, got the string "yes"');
    expect(shapeError(def({ indexers: { pods: { byNode: 'spec.nodeName' } } }))).toBe('ctrl.mjs: indexers[\'pods\'].byNode is the string "spec.nodeName", not a function returning the object\'s index values');
    expect(shapeError(def({ indexers: ['byNode'] }))).toBe("ctrl.mjs: indexers must be { 'pods': { byNode: (pod) => [pod.spec.nodeName] } }, got an array");
  });

  test('no primary resource from either the module or the command line', () => {
    expect(shapeError({ reconcile })).toBe('ctrl.mjs: names no primary resource: give RESOURCE on the command line or `for` in the module');
  });

  test('the CLI prints a ControllerModuleError as its one line, exit 1', () => {
    const report = describeError(new ControllerModuleError('ctrl.ts:4: boom (thrown while loading the module)', '/work/ctrl.ts'));
    expect(report).toEqual({ message: 'ctrl.ts:4: boom (thrown while loading the module)', exitCode: 1, bug: false });
  });
});

describe('cache settings and the definition\'s optional members', () => {
  test('cache: each resource\'s namespaces, label and field selectors are kept (copies); anything else is one line', () => {
    const namespaces = ['shop'];
    const cache = { 'deployments.apps': { namespaces, labelSelector: 'app=web', fieldSelector: 'metadata.name=web' }, pods: { labelSelector: '' }, configmaps: {} };
    const shape = controllerShape({ default: { for: 'deployments.apps', reconcile, cache } }, where);
    expect(shape.definition.cache).toStrictEqual({ 'deployments.apps': { namespaces: ['shop'], labelSelector: 'app=web', fieldSelector: 'metadata.name=web' }, pods: { labelSelector: '' }, configmaps: {} });
    expect(shape.definition.cache!['deployments.apps'].namespaces).not.toBe(namespaces);
    const bad = (c: unknown) => shapeError({ default: { for: 'pods', reconcile, cache: c } });
    expect(bad(['pods'])).toBe("ctrl.mjs: cache must be { 'deployments.apps': { namespaces: ['shop'], labelSelector: 'app=web', fieldSelector: 'metadata.name=web' } }, got an array");
    expect(bad({ pods: 'app=web' })).toBe('ctrl.mjs: cache[\'pods\'] must be { namespaces, labelSelector, fieldSelector }, got the string "app=web"');
    expect(bad({ pods: { namespace: ['a'] } })).toBe("ctrl.mjs: cache['pods'].namespace is not a cache setting: use namespaces, labelSelector or fieldSelector");
    for (const namespaces of ['shop', [], ['shop', ''], [3]]) expect(bad({ pods: { namespaces } })).toMatch(/^ctrl\.mjs: cache\['pods'\]\.namespaces must be a non-empty array of namespace names, got /);
    expect(bad({ pods: { labelSelector: 3 } })).toBe("ctrl.mjs: cache['pods'].labelSelector must be a string such as 'app=web', got a number (3)");
    expect(bad({ pods: { fieldSelector: null } })).toBe("ctrl.mjs: cache['pods'].fieldSelector must be a string such as 'app=web', got null");
  });

  test('the definition carries exactly the members the module gave', () => {
    const bare = controllerShape({ default: { for: 'pods', reconcile } }, where).definition;
    expect(Object.keys(bare).sort()).toEqual(['for', 'name', 'reconcile']);
    const errorPolicy = () => ({ requeue: true });
    const map = () => [];
    const full = controllerShape({ default: { for: 'pods', reconcile, errorPolicy, owns: ['replicasets.apps'], predicates: ['GenerationChanged'], ownsAllOwners: false, watches: [{ resource: 'configmaps', map }], indexers: { pods: { byNode: () => [] } }, cache: { pods: {} } } }, where).definition;
    expect(Object.keys(full).sort()).toEqual(['cache', 'errorPolicy', 'for', 'indexers', 'name', 'owns', 'ownsAllOwners', 'predicates', 'reconcile', 'watches']);
    expect(full.ownsAllOwners).toBe(false);
    expect(full.owns).toEqual(['replicasets.apps']);
    expect(full.predicates).toEqual(['GenerationChanged']);
    expect(full.watches).toEqual([{ resource: 'configmaps', map }]);
  });
});

describe('owns, predicates and watches forms', () => {
  test('owns as { resource, predicates }, predicate functions and names, watches: accepted as given; a blank name or a watch without a resource is one line', () => {
    const generation = (e: unknown) => Boolean(e);
    const shape = controllerShape({ default: { for: 'pods', reconcile, owns: [{ resource: 'replicasets.apps', predicates: [generation, 'GenerationChanged'] }, 'jobs.batch'], predicates: [generation] } }, where);
    expect(shape.definition.owns).toEqual([{ resource: 'replicasets.apps', predicates: [generation, 'GenerationChanged'] }, 'jobs.batch']);
    expect(shape.definition.predicates).toEqual([generation]);
    expect(shapeError({ default: { for: 'pods', reconcile, owns: [{ resource: 'replicasets.apps', extra: 1 }] } })).toBe('ctrl.mjs: owns[0].extra is not an owns setting: use resource and predicates');
    expect(shapeError({ default: { for: 'pods', reconcile, owns: [3] } })).toMatch(/^ctrl\.mjs: owns\[0\] must be .*, got a number \(3\)$/);
    expect(shapeError({ default: { for: '   ', reconcile } })).toBe("ctrl.mjs: for must be a resource name such as 'deployments.apps', got the string \"   \"");
    expect(shapeError({ default: { for: 'pods', reconcile, watches: [{ map: () => [] }] } })).toBe("ctrl.mjs: watches[0].resource must be a resource name such as 'configmaps', got undefined");
    expect(shapeError({ default: { for: 'pods', reconcile, ownsAllOwners: 1 } })).toBe('ctrl.mjs: ownsAllOwners must be true or false, got a number (1)');
    expect(shapeError({ default: { for: 'pods', reconcile, ownsAllOwners: 'yes' } })).toBe('ctrl.mjs: ownsAllOwners must be true or false, got the string "yes"');
  });
});
