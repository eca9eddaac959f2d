// The single executable's second entries, loaded on demand: packages most runs never use, kept out of the main
// bundle (which every run reads and compiles) and carried as SEA assets, each an ES module bundle imported from
// memory the first time the code asks for the package:
//  - live.mjs: ink and react, for --live (ink awaits at its top level, which only an ES module can hold);
//  - client-node.mjs: @kubernetes/client-node, for kubeconfig exec plugins and auth providers (5 of the
//    main bundle's 8 MB before: every run paid for reading and compiling it).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { SHIPPED_BUNDLE } from '../bundle/esbuild-options.js';

/** The packages the assets hold: the specifier the code imports → the asset, and the export holding it. */
export const ASSET_PACKAGES = {
  ink: { asset: 'live.mjs', name: 'ink' },
  react: { asset: 'live.mjs', name: 'react' },
  '@kubernetes/client-node': { asset: 'client-node.mjs', name: 'clientNode' },
};

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const ENTRIES = {
  // One asset for both, so that ink and the code drawing with it share one React.
  'live.mjs': "export * as ink from 'ink';\nexport * as react from 'react';\n",
  'client-node.mjs': "export * as clientNode from '@kubernetes/client-node';\n",
};

/**
 * The banner of the main (CommonJS) bundle: `__kwatchImportPackage(specifier)` in place of `import(specifier)`
 * for ASSET_PACKAGES. An import() in the executable's own code cannot load modules, one compiled by vm with
 * Node's default loader can: it imports the asset as a data: URL, once.
 */
export function assetLoaderSource() {
  return `var __kwatchImportPackage = (() => {
  const assets = ${JSON.stringify(ASSET_PACKAGES)};
  const loaded = new Map();
  let importer;
  return (specifier) => {
    const { asset, name } = assets[specifier];
    if (!loaded.has(asset)) {
      if (!importer) {
        // Node warns once that this vm option is experimental: kwatch's choice, nothing for the user to act on.
        const emitWarning = process.emitWarning;
        process.emitWarning = (w, ...rest) => (/^vm\\.USE_MAIN_CONTEXT_DEFAULT_LOADER is an experimental/.test(typeof w === 'string' ? w : w?.message) ? undefined : emitWarning.call(process, w, ...rest));
        const vm = require('node:vm');
        importer = new vm.Script('(url) => import(url)', { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER }).runInThisContext();
      }
      const url = 'data:text/javascript;base64,' + Buffer.from(require('node:sea').getAsset(asset)).toString('base64');
      // An error names the asset, not its megabytes of data: URL.
      loaded.set(asset, importer(url).catch((err) => {
        if (typeof err?.message === 'string') err.message = err.message.split(url).join('kwatch:' + asset);
        throw err;
      }));
    }
    return loaded.get(asset).then((m) => m[name]);
  };
})();`;
}

/**
 * ink loads react-devtools-core only when DEV=true, a development aid that is not installed: an empty one
 * stands in (an import left to resolve at run time would fail the whole asset, which has nowhere to resolve from).
 */
const noDevtools = {
  name: 'kwatch-no-react-devtools',
  setup(build) {
    build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'kwatch-no-devtools' }));
    build.onLoad({ filter: /.*/, namespace: 'kwatch-no-devtools' }, () => ({ contents: 'export default { initialize() {}, connectToDevTools() {} };', loader: 'js' }));
  },
};

/** Builds every asset into dir; returns { name: path } for the SEA configuration's "assets". */
export async function buildAssets(dir) {
  const out = {};
  for (const [name, contents] of Object.entries(ENTRIES)) {
    const outfile = join(dir, name);
    await esbuild.build({
      ...SHIPPED_BUNDLE,
      stdin: { contents, resolveDir: ROOT, loader: 'js' },
      target: 'node24',
      format: 'esm',
      outfile,
      plugins: [noDevtools],
      // tr46 and whatwg-url (under client-node) require Node's deprecated punycode built-in, which warns when
      // required from outside node_modules, as from the asset: the userland package of the same code instead.
      alias: { punycode: 'punycode/' },
      // React's production build: the development one checks and warns on every frame.
      define: { 'process.env.NODE_ENV': '"production"', 'import.meta.url': '__kwatch_import_meta_url' },
      // A data: URL module has no require() of its own: the CommonJS packages inside get one for Node's built-ins.
      banner: { js: 'import { createRequire as __kwatchCreateRequire } from "node:module"; import { pathToFileURL as __kwatchPathToFileURL } from "node:url"; const require = __kwatchCreateRequire(process.execPath); const __kwatch_import_meta_url = __kwatchPathToFileURL(process.execPath).href;' },
    });
    out[name] = outfile;
  }
  return out;
}
