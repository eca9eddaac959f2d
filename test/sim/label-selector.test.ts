import { describe, expect, it } from 'vitest';
import { labelSelectorFromObject, parseLabelSelector } from '../../src/sim/label-selector.js';
import { SelectorError } from '../../src/sim/selector-error.js';

const QNAME_REGEX = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_REGEX = "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('label selector grammar', () => {
  const labels = { app: 'web', tier: 'frontend', version: '7', 'example.com/owner': 'team-a' };
  // [selector, matches `labels`, canonical string]
  const table: [string, boolean, string][] = [
    ['', true, ''],
    ['app=web', true, 'app=web'],
    ['app==web', true, 'app==web'],
    ['app!=web', false, 'app!=web'],
    ['missing!=x', true, 'missing!=x'],
    ['app in (web,api)', true, 'app in (api,web)'],
    ['app notin (web)', false, 'app notin (web)'],
    ['missing notin (a)', true, 'missing notin (a)'],
    ['app', true, 'app'],
    ['!app', false, '!app'],
    ['!missing', true, '!missing'],
    ['version>5', true, 'version>5'],
    ['version<5', false, 'version<5'],
    ['app>5', false, 'app>5'],
    ['example.com/owner=team-a', true, 'example.com/owner=team-a'],
    ['  tier = frontend ,  app  ', true, 'app,tier=frontend'],
    ['app=web,tier=backend', false, 'app=web,tier=backend'],
    ['app=', false, 'app='],
    ['x in (in,notin)', false, 'x in (in,notin)'],
    ['x notin ()', true, 'x notin ()'],
    ['x in (,a)', false, 'x in (,a)'],
  ];
  it.each(table)('parses %j (matches: %s, canonical: %j)', (selector, matches, canonical) => {
    const sel = parseLabelSelector(selector);
    expect(sel.matches(labels)).toBe(matches);
    expect(sel.toString()).toBe(canonical);
    expect(sel.empty).toBe(selector === '');
  });

  it('treats an object without labels as lacking every key', () => {
    expect(parseLabelSelector('a!=b,!c').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a').matches(undefined)).toBe(false);
  });

  it('sorts requirements by key and de-duplicates set values', () => {
    const sel = parseLabelSelector('z=1,a in (b,b,a)');
    expect(sel.requirements.map((r) => r.key)).toEqual(['a', 'z']);
    expect(sel.requirements[0].values).toEqual(['a', 'b']);
  });
});

describe('label selector errors carry kube-apiserver wording', () => {
  const errors: [string, string][] = [
    ['a b', 'unable to parse requirement: found \'b\', expected: in, notin, =, ==, !=, gt, lt'],
    ['app:web', `unable to parse requirement: <nil>: Invalid value: "app:web": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ${QNAME_REGEX}`],
    ['a=b@c', `unable to parse requirement: values[0][a]: Invalid value: "b@c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ${VALUE_REGEX}`],
    ['x>abc', 'unable to parse requirement: values[0]: Invalid value: "abc": for \'Gt\', \'Lt\' operators, the value must be an integer'],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['a,', "found '', expected: identifier after ','"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['/a', `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`],
    ['Example.com/a', "unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ['a/b/c', `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ${QNAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
  ];
  it.each(errors)('rejects %j', (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(SelectorError);
    expect(() => parseLabelSelector(selector)).toThrow(message);
    try {
      parseLabelSelector(selector);
    } catch (e) {
      expect((e as Error).message).toBe(message);
    }
  });

  it('rejects keys longer than 63 characters in the name part', () => {
    const key = 'k'.repeat(64);
    expect(() => parseLabelSelector(key)).toThrow(`unable to parse requirement: <nil>: Invalid value: "${key}": name part must be no more than 63 characters`);
  });
});

describe('metav1.LabelSelector objects', () => {
  it('matches matchLabels and matchExpressions together', () => {
    const sel = labelSelectorFromObject({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'canary', operator: 'DoesNotExist' }] });
    expect(sel.matches({ app: 'web', tier: 'b' })).toBe(true);
    expect(sel.matches({ app: 'web', tier: 'b', canary: 'yes' })).toBe(false);
    expect(sel.toString()).toBe('app=web,!canary,tier in (a,b)');
  });

  it('selects everything for {} and nothing for null', () => {
    expect(labelSelectorFromObject({}).matches({})).toBe(true);
    expect(labelSelectorFromObject(null).matches({ a: 'b' })).toBe(false);
  });

  it('rejects an unknown operator with apimachinery wording', () => {
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toThrow('"Gt" is not a valid label selector operator');
  });
});
