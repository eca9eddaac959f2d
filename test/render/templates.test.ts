// The template engines behind -o jsonpath / go-template / custom-columns, on their own (the byte-for-byte
// comparisons with real kubectl are in test/e2e/template-output.test.ts).
import { describe, expect, it } from 'vitest';
import { goFloat, goSprint } from '../../src/render/go-print.js';
import { compileGoTemplate } from '../../src/render/go-template.js';
import { compileJsonPathTemplate } from '../../src/render/jsonpath-template.js';
import { compileObjectTemplate } from '../../src/render/object-template.js';

const list = {
  kind: 'List',
  items: [
    { metadata: { name: 'a', labels: { app: 'x', tier: 'web' } }, spec: { replicas: 3, ratio: 0.25 } },
    { metadata: { name: 'b' }, spec: { replicas: 1234567 } },
  ],
};

describe("Go's value printing", () => {
  it('formats float64 as %v does', () => {
    expect([1e6, 1234567.5, 123456, 0.5, 0.0001, 0.00001, -2.5e-7, 1e21].map(goFloat)).toEqual(['1e+06', '1.2345675e+06', '123456', '0.5', '0.0001', '1e-05', '-2.5e-07', '1e+21']);
  });
  it('prints maps with sorted keys and slices with spaces, ints as int64', () => {
    expect(goSprint({ b: [1, 'x'], a: { c: null } }, 'int64')).toBe('map[a:map[c:<nil>] b:[1 x]]');
    expect(goSprint(1234567, 'int64')).toBe('1234567');
    expect(goSprint(1234567, 'float64')).toBe('1.234567e+06');
  });
});

describe('JSONPath templates', () => {
  it('prints text, ranges, nested ranges and literals', () => {
    expect(compileJsonPathTemplate('{range .items[*]}{.metadata.name}:{range .metadata.labels.*}{@}.{end}{"\\n"}{end}')(list)).toBe('a:x.web.\nb:\n');
    expect(compileJsonPathTemplate('n={.items[*].metadata.name} {.items[0].metadata.labels}')(list)).toBe('n=a b {"app":"x","tier":"web"}');
    expect(compileJsonPathTemplate("{'\\t'}{.kind}")(list)).toBe('\tList');
  });
  it('refuses what kubectl refuses', () => {
    expect(() => compileJsonPathTemplate('{end}')).toThrow(/not in range, nothing to end/);
    expect(() => compileJsonPathTemplate('{.a')).toThrow(/unclosed action/);
    expect(() => compileJsonPathTemplate('{foo}')).toThrow(/unrecognized identifier foo/);
  });
});

describe('go-template', () => {
  const run = (t: string) => compileGoTemplate(t)(list);
  it('fields, missing values, trimming, else-if chains and variables', () => {
    expect(run('{{range .items}}{{.metadata.name}}={{.spec.replicas}} {{end}}')).toBe('a=3 b=1234567 ');
    expect(run('{{.nope}} {{.nope.deeper}}')).toBe('<no value> <no value>');
    expect(run('{{- range .items }}\n  {{ .metadata.name -}}\n{{ end }}')).toBe('\n  a\n  b');
    expect(run('{{range .items -}}\n  {{ .metadata.name }}\n{{- end}}')).toBe('ab');
    expect(run('{{range .items}}{{if gt .spec.replicas 5}}big{{else if eq .spec.replicas 3}}three{{else}}other{{end}},{{end}}')).toBe('three,big,');
    expect(run('{{range $i, $p := .items}}{{$i}}{{$p.metadata.name}}{{end}}{{$n := len .items}}/{{$n}}')).toBe('0a1b/2');
    expect(run('{{range $k, $v := (index .items 0).metadata.labels}}{{$k}}={{$v}};{{end}}')).toBe('app=x;tier=web;');
  });
  it('printf, print and pipelines as fmt does', () => {
    expect(run('{{printf "%s|%5d|%-3s|%.1f|%.1f|%q" .kind 42 "ab" 0.25 0.35 "x"}}')).toBe('List|   42|ab |0.2|0.3|"x"');
    expect(run('{{printf "%d" .kind}} {{printf "%s"}} {{printf "x" 1}}')).toBe('%!d(string=List) %!s(MISSING) x%!(EXTRA int=1)');
    expect(run('{{.kind | printf "<%s>"}} {{print 1 2 "a" 3}}')).toBe('<List> 1 2a3');
    expect(run('{{index .items 1 | len}} {{exists . "items"}} {{base64decode "aGk="}}')).toBe('2 true hi');
  });
  it('refuses what it does not support, in one line', () => {
    expect(() => compileGoTemplate('{{define "x"}}{{end}}')).toThrow(/\{\{define\}\} is not supported/);
    expect(() => compileGoTemplate('{{upper .kind}}')).toThrow(/function "upper" not defined/);
    expect(() => compileGoTemplate('{{if .a}}')).toThrow(/without \{\{end\}\}/);
    expect(() => compileGoTemplate('{{.a')).toThrow(/unclosed action/);
    expect(() => run('{{.kind.name}}')).toThrow(/can't evaluate field name in type string/);
  });
});

describe('custom-columns', () => {
  it('streams rows with widths that never shrink, the header once', () => {
    const t = compileObjectTemplate('custom-columns', 'NAME:.metadata.name,APP:.metadata.labels.app');
    expect(t.objects([list.items[0]])).toBe('NAME   APP\na      x\n');
    expect(t.objects([{ metadata: { name: 'a-much-longer-name' } }])).toBe('a-much-longer-name   <none>\n');
    expect(t.objects([list.items[1]])).toBe('b                    <none>\n');
    expect(t.document(list)).toBe('NAME   APP\na      x\nb      <none>\n');
  });
});
