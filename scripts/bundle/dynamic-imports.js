// The npm bundle's import() calls, routed through a function its loader hands in (src/cli/load-bundle.ts), so
// that V8's code for the bundle can be kept on disk on Node 20 too. There, an import() written in a script
// compiled from cached code fails (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING: Node 20 loses the script's import
// callback when V8 takes the cached code); an import() made by a function of a real module does not. The
// bundle imports ink, react, esbuild, @kubernetes/client-node and node: built-ins this way, and the user's
// controllers. Every import() of the text is found by parsing it (acorn), not by matching: strings, regular
// expressions and templates of the bundle may hold the same letters.
import { parse } from 'acorn';

/** The name the bundle calls instead of import(): the loader's 6th wrapper argument, or the fallback below. */
export const IMPORTER = '__kwatchImport';

/**
 * The first line of the routed bundle: when something else than load-bundle.ts runs it (require(), Node's own
 * loader), there is no 6th argument, and import() is the bundle's own, as before. `var` of a parameter's name
 * keeps the argument passed.
 */
const FALLBACK = `var ${IMPORTER} = typeof ${IMPORTER} == "function" ? ${IMPORTER} : (specifier, options) => options === undefined ? import(specifier) : import(specifier, options);\n`;

/** `text` (a CommonJS script) with each import(x) made __kwatchImport(x), and the fallback line before it. */
export function routeDynamicImports(text) {
  const starts = [];
  visit(parse(text, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true, allowReturnOutsideFunction: true }), (node) => {
    if (node.type === 'ImportExpression') starts.push(node.start);
  });
  let routed = '';
  let from = 0;
  for (const start of starts.sort((a, b) => a - b)) {
    // The node starts at the keyword itself: `import`, then (possibly after blanks or comments) its arguments.
    if (text.slice(start, start + 6) !== 'import') throw new Error(`routeDynamicImports: no import keyword at ${start}`);
    routed += text.slice(from, start) + IMPORTER;
    from = start + 6;
  }
  return FALLBACK + routed + text.slice(from);
}

/** Calls `see` on every node of an ESTree tree (acorn's nodes are plain objects with a `type`). */
function visit(node, see) {
  const stack = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    see(current);
    for (const key in current) {
      const value = current[key];
      if (value === null || typeof value !== 'object') continue;
      if (Array.isArray(value)) {
        for (const item of value) if (item !== null && typeof item === 'object' && typeof item.type === 'string') stack.push(item);
      } else if (typeof value.type === 'string') stack.push(value);
    }
  }
}
