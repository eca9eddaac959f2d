// Every test process gets its own HOME, KUBECONFIG and KUBECACHEDIR so no test touches ~/.kube.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const home = mkdtempSync(join(tmpdir(), 'kwatch-test-home-'));
process.env.HOME = home;
process.env.KUBECONFIG = join(home, '.kube', 'config');
process.env.KUBECACHEDIR = join(home, '.kube', 'cache');
process.env.NO_COLOR = '1';
