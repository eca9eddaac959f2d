// Edits to dependencies' text as the bundle takes it in (@oclif/core, undici), each saving start-up time spent on
// what kwatch never uses. Each names the exact text it replaces: the bundle fails to build if oclif's text changed, rather
// than silently losing the edit (update this file then).

/**
 * oclif:
 * - Built-ins oclif requires at load time but uses only now and then: perf_hooks (only with
 *   OCLIF_PERFORMANCE), child_process (only on Windows, to name the shell) and, through debug, tty and net
 *   (only with DEBUG). Node compiles each built-in on first require: 13% of a short run in the executable's
 *   profile. These requires become lazy.
 * - getPlatform() imports wsl-utils (and is-wsl, is-inside-container, is-docker, powershell-utils, which read
 *   /proc and the file system) to tell WSL from Linux, for oclif's user agent line alone. kwatch's own version
 *   line (src/cli/main.ts) names process.platform, so oclif's does too.
 * - checkNodeVersion(): at load, oclif loads semver (~10 ms) to compare Node's version with the engines of the
 *   package.json above its own file, which in a bundle is kwatch's (>= 20.18, which npm checks at install).
 * - The command list is sorted with localeCompare, whose first call loads ICU's collator: 8 ms of every start.
 *   kwatch's command ids are lowercase ASCII words joined by '-' and ':', which sort the same by code point.
 * - The manifest: the executable has no oclif.manifest.json beside it, so oclif would load every command to
 *   rebuild it at each start; the bundle carries it (kwatch:manifest, undefined in the npm form, which reads
 *   the file).
 * undici:
 * - Its HTTP/2 client, which loads node:http2 (the largest of Node's HTTP modules, ~5 ms to compile at each
 *   start), is required by every client though only a connection that negotiates h2 uses it; kwatch's
 *   connections never offer h2 (allowH2 is off), so it loads on first use.
 */
const PATCHES = [
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]performance\.js$/,
    from: 'const node_perf_hooks_1 = require("node:perf_hooks");',
    to: 'const node_perf_hooks_1 = { get performance() { return require("node:perf_hooks").performance; }, get PerformanceObserver() { return require("node:perf_hooks").PerformanceObserver; } };',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/,
    from: 'const node_child_process_1 = require("node:child_process");',
    to: 'const node_child_process_1 = { get execSync() { return require("node:child_process").execSync; } };',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/,
    from: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
    to: 'return (0, node_os_1.platform)();',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]logger\.js$/,
    from: 'const debug_1 = __importDefault(require("debug"));',
    // A logger that logs nothing unless DEBUG is set, as debug's own would; with DEBUG, debug itself.
    to: 'const debug_1 = { default: (namespace) => { if (process.env.DEBUG) return require("debug")(namespace); const off = () => {}; off.enabled = false; off.namespace = namespace; off.extend = () => off; off.log = off; return off; } };',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]index\.js$/,
    from: '\ncheckNodeVersion();\n',
    to: '\n',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: '.sort((a, b) => a.id.localeCompare(b.id));',
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: 'const manifest = await (0, fs_1.readJson)(p);',
    to: 'const manifest = (!dotfile && require("kwatch:manifest").default) || await (0, fs_1.readJson)(p);',
  },
  {
    file: /undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/,
    from: "const connectH2 = require('./client-h2.js')",
    to: "const connectH2 = (...args) => require('./client-h2.js')(...args)",
  },
];

/** One entry per dependency file the bundle edits: { file, apply(text, path) }. */
export function dependencyPatches() {
  const files = new Map();
  for (const patch of PATCHES) {
    const key = patch.file.source;
    if (!files.has(key)) files.set(key, { file: patch.file, edits: [] });
    files.get(key).edits.push(patch);
  }
  return [...files.values()].map(({ file, edits }) => ({
    file,
    apply(text, path) {
      for (const edit of edits) {
        if (!text.includes(edit.from)) throw new Error(`${path} no longer contains ${edit.from}: update scripts/bundle/dependency-patches.js`);
        text = text.replace(edit.from, edit.to);
      }
      return text;
    },
  }));
}
