import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Folders whose files start the CLI, sims, kubectl or a browser: their time is in those processes, not in their size.
const SLOW_FOLDERS = /^test\/(e2e|docs|examples|package|integration)\/|^test\/sim\/kubectl/;

/**
 * Longest files first, so that no long file starts last and runs alone. Vitest orders by the durations it cached on an
 * earlier run; a fresh clone (CI) has none, and vitest then runs the largest files first — here a big file of
 * in-process unit tests before a small one that starts twenty processes. Without a cached duration for every file,
 * the files that start processes go first (largest first among them), then the rest by size.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const keyOf = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`;
    if (files.every((f) => cache.getFileTestResults(keyOf(f)))) return super.sort(files);
    const slow = (f: TestSpecification) => (SLOW_FOLDERS.test(relative(this.ctx.config.root, f.moduleId)) ? 1 : 0);
    const size = (f: TestSpecification) => cache.getFileStats(keyOf(f))?.size ?? 0;
    return [...files].sort((a, b) => slow(b) - slow(a) || size(b) - size(a));
  }
}
