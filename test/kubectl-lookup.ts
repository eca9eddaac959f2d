// The one kubectl every test uses (the judge of the embedded server): KUBECTL if set, else `kubectl` from
// PATH, as .ci/run makes sure it is installed. And the oldest kubectl the suite can pass with.
import { execFileSync } from 'node:child_process';

export const KUBECTL = process.env.KUBECTL ?? 'kubectl';

/**
 * The oldest kubectl the tests need: 1.26 runs `kubectl_complete-<plugin>` for `kubectl kwatch <TAB>` and
 * asks discovery in its aggregated form (the cache files and request counts the discovery tests compare).
 * Older ones fail with unknown flags and other discovery traffic (1.20, Debian bookworm's kubernetes-client,
 * fails 23 tests). .ci/run reads this line.
 */
export const MIN_KUBECTL_VERSION = '1.26';

export interface KubectlVersion {
  major: number;
  minor: number;
  /** As kubectl prints it, e.g. v1.32.4-dispatcher. */
  text: string;
}

/** The client version from `kubectl version --client -o json` ("minor" may read "32+"). */
export function parseKubectlVersion(json: string): KubectlVersion | undefined {
  try {
    const v = (JSON.parse(json) as { clientVersion?: { major?: string; minor?: string; gitVersion?: string } }).clientVersion;
    const major = Number.parseInt(v?.major ?? '', 10);
    const minor = Number.parseInt(v?.minor ?? '', 10);
    if (!Number.isFinite(major) || !Number.isFinite(minor)) return undefined;
    return { major, minor, text: v?.gitVersion ?? `v${major}.${minor}` };
  } catch {
    return undefined;
  }
}

/** One line saying why this kubectl cannot run the suite, or undefined when it can. */
export function kubectlFloorProblem(found: KubectlVersion | 'missing' | 'unreadable', kubectl = KUBECTL, min = MIN_KUBECTL_VERSION): string | undefined {
  const [minMajor, minMinor] = min.split('.').map(Number);
  const fix = `install kubectl ${min} or newer, or point KUBECTL at one`;
  if (found === 'missing') return `the tests need kubectl >= ${min}, and "${kubectl}" was not found: ${fix}`;
  if (found === 'unreadable') return `the tests need kubectl >= ${min}, and "${kubectl} version --client -o json" did not say which version it is: ${fix}`;
  if (found.major > minMajor || (found.major === minMajor && found.minor >= minMinor)) return undefined;
  return `the tests need kubectl >= ${min}, found ${found.text} ("${kubectl}"): ${fix}`;
}

/** Asks the kubectl the tests will run for its version. */
export function installedKubectl(kubectl = KUBECTL): KubectlVersion | 'missing' | 'unreadable' {
  let out: string;
  try {
    out = execFileSync(kubectl, ['version', '--client', '-o', 'json'], { encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    // kubectl 1.20 and older have no `-o json` for a client-only version … or exit non-zero: read what it printed.
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  return parseKubectlVersion(out) ?? 'unreadable';
}
