// Before any test: the kubectl the suite judges the embedded server with must be new enough, or the run
// stops here with one line, instead of dozens of failures about unknown flags.
import { installedKubectl, kubectlFloorProblem } from './kubectl-lookup.js';

export default function setup(): void {
  const problem = kubectlFloorProblem(installedKubectl());
  if (problem === undefined) return;
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
