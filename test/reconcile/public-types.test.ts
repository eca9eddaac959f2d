// The types ship with the package: a user's TypeScript project that has kwatch in its node_modules
// (here a symlink to this repo, built by `npm run build`) gets them from `import … from 'kwatch'`
// through package.json's "exports" and dist's .d.ts, and a misspelt field is a type error.
import { afterAll, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../temp-dir.js';

const repo = join(import.meta.dirname, '..', '..');
const project = tempDir('kwatch-user-project-');
afterAll(() => rmSync(project, { recursive: true, force: true }));

test("a user's project type-checks against kwatch's published types, and a misspelt field does not", async () => {
  if (!existsSync(join(repo, 'dist', 'index.d.ts'))) throw new Error('dist/index.d.ts is missing: run npm run build first');
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(repo, join(project, 'node_modules', 'kwatch'), 'dir');
  symlinkSync(join(repo, 'node_modules', '@types', 'node'), join(project, 'node_modules', '@types', 'node'), 'dir');
  writeFileSync(join(project, 'package.json'), '{ "type": "module" }');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, include: ['*.ts'] }),
  );
  writeFileSync(
    join(project, 'scaler.ts'),
    `import { defineController } from 'kwatch';
import type { ReconcileContext, ReconcileRequest, Reconciler } from 'kwatch';

export default defineController({
  for: 'deployments.apps',
  owns: ['replicasets.apps'],
  async reconcile(req, ctx) {
    const d = await ctx.get('deployments.apps', req);
    if (d) await ctx.patch(d, { spec: { replicas: 1 } });
    return { requeueAfter: '1m' };
  },
});

export const plain: Reconciler = { reconcile: async (_req: ReconcileRequest, _ctx: ReconcileContext) => undefined };
`,
  );
  writeFileSync(join(project, 'typo.ts'), `import { defineController } from 'kwatch';\nexport default defineController({ for: 'pods', watchs: [], reconcile() {} });\n`);

  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = await new Promise<string>((resolve) => execFile(process.execPath, [tsc, '-p', project], { cwd: project, timeout: 60_000 }, (_err, stdout) => resolve(stdout)));
  expect(out.trim().split('\n')).toEqual([
    "typo.ts(2,48): error TS2561: Object literal may only specify known properties, but 'watchs' does not exist in type 'ControllerDefinition'. Did you mean to write 'watches'?",
  ]);
});
