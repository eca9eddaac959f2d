// Every test process gets its own HOME, KUBECONFIG and KUBECACHEDIR so no test touches ~/.kube; after each
// test file, that HOME and every folder the file made with tempDir are removed (also when its tests failed).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { removeTempDirs, tempDir } from './temp-dir.js';

const home = tempDir('kwatch-test-home-');
process.env.HOME = home;
process.env.KUBECONFIG = join(home, '.kube', 'config');
process.env.KUBECACHEDIR = join(home, '.kube', 'cache');
process.env.NO_COLOR = '1';

afterAll(() => {
  removeTempDirs();
  rmSync(home, { recursive: true, force: true, maxRetries: 5 });
});
