// `import { defineController } from 'kwatch'` in a user's JavaScript module, wherever it lives: a Node
// resolve hook maps the bare name 'kwatch' to the running kwatch's own public entry, so no
// node_modules beside the module needs to hold kwatch (and one that does gets the running version).
import { register } from 'node:module';

let registeredFor: string | undefined;

/** Idempotent; module.register exists on Node ≥ 20.6 (the hook runs on Node's loader thread). */
export function resolveKwatchTo(publicEntryUrl: string): void {
  if (registeredFor === publicEntryUrl) return;
  if (registeredFor !== undefined) throw new Error(`'kwatch' already resolves to ${registeredFor}`);
  registeredFor = publicEntryUrl;
  // A data: URL, so the hook needs no file of its own next to the compiled code.
  const hook = `export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'kwatch') return { url: ${JSON.stringify(publicEntryUrl)}, shortCircuit: true };
  return nextResolve(specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}
