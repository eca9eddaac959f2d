import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '../../src/reconcile/selectors.js';

describe('selectors over cached objects (ctx.list)', () => {
  it('label selectors: equality, inequality, set-based and existence, as the API server reads them', () => {
    const m = (s: string) => parseLabelSelector(s);
    const labels = { app: 'web', tier: 'front' };
    expect(m('app=web,tier==front')(labels)).toBe(true);
    expect(m('app!=web')(labels)).toBe(false);
    expect(m('app!=api')({})).toBe(true);
    expect(m('tier in (back, front),app notin (api)')(labels)).toBe(true);
    expect(m('tier')(labels)).toBe(true);
    expect(m('!tier')(labels)).toBe(false);
    expect(m('')(undefined)).toBe(true);
    expect(() => m('a in (')).toThrow(SelectorError);
  });

  it('label selectors: each form only as a whole requirement, blanks around its parts, and the error naming both', () => {
    const m = (s: string) => parseLabelSelector(s);
    const labels = { app: 'web', tier: 'front', 'example.com/team': 'a-b' };
    // Blanks around requirements, operators and set members.
    expect(m(' app = web ,  tier in ( back ,front ) ')(labels)).toBe(true);
    expect(m('! gone, example.com/team==a-b')(labels)).toBe(true);
    expect(m('app in (api,)')(labels)).toBe(false);
    expect(m('tier notin (back)')(labels)).toBe(true);
    expect(m('tier notin (front)')(labels)).toBe(false);
    expect(m('gone notin (x)')(undefined)).toBe(true);
    expect(m('app in (web)')(undefined)).toBe(false);
    expect(m('app')({ other: 'x' })).toBe(false);
    // A label whose value is an empty string exists, and equals "".
    expect(m('empty=')({ empty: '' })).toBe(true);
    expect(m('empty')({ empty: '' })).toBe(true);
    // Not a form: extra text before or after a requirement, a set without its blank before "(".
    for (const bad of ['x!app', '!app extra', 'app in (web) extra', 'x; app in (web)', 'app=web extra', 'app=web=x', 'a b', 'app in(web)', 'appin (web)']) {
      expect(() => m(bad), bad).toThrow(SelectorError);
    }
    expect(() => m('app=web, a b')).toThrow('unable to parse requirement: "a b" in label selector "app=web, a b"');
  });

  it('field selectors: blanks, a missing or null field as "", an object as its JSON, and any requirement failing the whole', () => {
    const pod = { metadata: { name: 'p', namespace: 'ns', labels: { a: 'b' } }, spec: { nodeName: 'node-1', hostNetwork: null as unknown } } as unknown as Parameters<ReturnType<typeof parseFieldSelector>>[0];
    expect(parseFieldSelector(' spec.nodeName = node-1 , metadata.name=p ')(pod)).toBe(true);
    expect(parseFieldSelector('spec.nodeName=node-1,metadata.name=q')(pod)).toBe(false);
    expect(parseFieldSelector('spec.missing=')(pod)).toBe(true);
    expect(parseFieldSelector('spec.hostNetwork=')(pod)).toBe(true);
    expect(parseFieldSelector('spec.nodeName.deeper=')(pod)).toBe(true);
    expect(parseFieldSelector('metadata.labels={"a":"b"}')(pod)).toBe(true);
    expect(() => parseFieldSelector('x spec.nodeName=a')).toThrow('invalid field selector requirement "x spec.nodeName=a": use path=value or path!=value');
  });

  it('a field path through null or a string is a missing field (""), not an error nor the string\'s own properties', () => {
    const pod = { metadata: { name: 'p' }, spec: { hostNetwork: null } } as unknown as Parameters<ReturnType<typeof parseFieldSelector>>[0];
    expect(parseFieldSelector('spec.hostNetwork.deeper=')(pod)).toBe(true);
    expect(parseFieldSelector('metadata.name.length=')(pod)).toBe(true);
    expect(parseFieldSelector('metadata.name.length=1')(pod)).toBe(false);
  });

  it('label selectors: several blanks around in/notin and none around = count alike', () => {
    const labels = { app: 'web', tier: 'front' };
    expect(parseLabelSelector('tier  in   (front)')(labels)).toBe(true);
    expect(parseLabelSelector('app  notin  (web)')(labels)).toBe(false);
    expect(parseLabelSelector('app=web,tier!=back')(labels)).toBe(true);
    expect(parseLabelSelector('!  gone')(labels)).toBe(true);
    expect(parseFieldSelector('metadata.name  !=  q')({ metadata: { name: 'p' } } as never)).toBe(true);
  });

  it('an empty set member is the empty value, as kube reads it: (a,) is {a, ""} and () is {""}', () => {
    expect(parseLabelSelector('app in (web,)')({ app: '' })).toBe(true);
    expect(parseLabelSelector('app in (web,)')({ app: 'web' })).toBe(true);
    expect(parseLabelSelector('app in (web,)')({ app: 'api' })).toBe(false);
    expect(parseLabelSelector('app in ()')({ app: '' })).toBe(true);
    expect(parseLabelSelector('app notin (web,)')({ app: '' })).toBe(false);
    expect(parseLabelSelector('app notin ( , web)')({ app: 'api' })).toBe(true);
  });

  it('field selectors: an empty requirement (a trailing comma) is skipped', () => {
    expect(parseFieldSelector('metadata.name=p,')({ metadata: { name: 'p' } } as never)).toBe(true);
    expect(parseFieldSelector(',metadata.name=q')({ metadata: { name: 'p' } } as never)).toBe(false);
  });

  it('field selectors on any dotted path', () => {
    const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'node-1' } };
    expect(parseFieldSelector('spec.nodeName=node-1,metadata.namespace!=kube-system')(pod)).toBe(true);
    expect(parseFieldSelector('spec.nodeName=node-2')(pod)).toBe(false);
    expect(() => parseFieldSelector('spec.nodeName')).toThrow(/path=value/);
  });
});
