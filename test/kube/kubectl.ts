// Runs the real kubectl (the judge) with its own KUBECACHEDIR.
import { execFile } from 'node:child_process';

import { KUBECTL } from '../kubectl-lookup.js';

export { KUBECTL };

export function kubectl(args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(KUBECTL, args, { env: { ...process.env, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 });
    });
  });
}
