// -o's template values, parsed in process: each bad one is a UserError whose one line names what is wrong. That such an
// error reaches the user as one line, exit 1, nothing on stdout, test/e2e/template-output.test.ts checks through the
// built CLI for one parse error and for an error while printing; the other cases differ only in the message, so a CLI
// run each (~0.4 s of CPU) bought nothing the parser's own answer does not show.
import { describe, expect, it } from 'vitest';
import { templateFromOutput } from '../../src/cli/output-template.js';
import { UserError } from '../../src/cli/user-error.js';

describe('a bad -o template is a one-line UserError', () => {
  it.each([
    ['jsonpath={.items[*].metadata.name', /^error parsing jsonpath .*unclosed action/],
    ['go-template={{template "x"}}', /^error parsing go-template .*\{\{template\}\} is not supported/],
    ['go-template={{.metadata.name | upper}}', /^error parsing go-template .*function "upper" not defined/],
    ['go-template={{range .items}}', /^error parsing go-template .*without \{\{end\}\}/],
    ['custom-columns=NAME', /^error parsing custom-columns .*expected <header>:<json-path-expr>/],
    ['jsonpath-file=/nonexistent/t.txt', /^cannot read the jsonpath-file \/nonexistent\/t.txt: no such file/],
  ])('-o %s', async (output, message) => {
    const err = await templateFromOutput(output).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });

  it('a template that fails on an object is a UserError when it prints, not when it is read', async () => {
    const template = await templateFromOutput('go-template={{range .kind}}{{end}}');
    expect(template).toBeDefined();
    let err: unknown;
    try {
      template!.document({ kind: 'List', items: [] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(/^error executing go-template .*range can't iterate over List/);
  });
});
