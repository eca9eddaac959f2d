// One object nested deeper than kwatch follows (informer/nesting.ts): one line naming it on stderr, and the
// command goes on with the others.
import { NestingTooDeepError } from '../informer/nesting.js';
import { metaNamespaceKey, type KubeObject } from '../informer/types.js';
import { escapeForTerminal } from '../render/terminal-escape.js';

/** Runs `show` for one object; when the object nests too deep, says so in one line and returns false. */
export function showOrSkipTooDeep(what: string, show: () => void): boolean {
  try {
    show();
    return true;
  } catch (e) {
    if (!(e instanceof NestingTooDeepError)) throw e;
    process.stderr.write(`error: ${escapeForTerminal(what)}: ${e.message}; left out\n`);
    return false;
  }
}

/** How the line above names an object: its key and resourceVersion. */
export function objectName(obj: KubeObject | undefined): string {
  if (!obj?.metadata) return 'an object';
  const rv = obj.metadata.resourceVersion;
  return `${metaNamespaceKey(obj)}${rv ? ` (resourceVersion ${rv})` : ''}`;
}
