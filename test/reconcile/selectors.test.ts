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

  it('field selectors on any dotted path', () => {
    const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'node-1' } };
    expect(parseFieldSelector('spec.nodeName=node-1,metadata.namespace!=kube-system')(pod)).toBe(true);
    expect(parseFieldSelector('spec.nodeName=node-2')(pod)).toBe(false);
    expect(() => parseFieldSelector('spec.nodeName')).toThrow(/path=value/);
  });
});
