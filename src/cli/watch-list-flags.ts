// --watch-list, --initial-events-timeout and --fallback: how a command's informers sync (client-go 1.35's watch-list by
// default), the same three flags on every command that runs an informer; their help differs only by what it covers.
import { Flags } from '@oclif/core';
import { parseDuration } from './duration.js';

/** The three flags; `scope` starts each description (e.g. "Module mode: "), `listFirst` says what --no-watch-list does. */
export function watchListFlags(o: { scope?: string; listFirst: string; note?: string } = { listFirst: 'LIST then WATCH' }) {
  const scope = o.scope ?? '';
  const lower = (text: string) => (scope ? text[0].toLowerCase() + text.slice(1) : text);
  return {
    'watch-list': Flags.boolean({
      description: `${scope}${lower(`Sync with a watch-list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan), as client-go 1.35's WatchListClient does by default, falling back to LIST+WATCH when the server refuses it. The default; --no-watch-list: ${o.listFirst}, as client-go 1.34 and earlier.`)}${o.note ? ` ${o.note}` : ''}`,
      default: true,
      allowNo: true,
    }),
    'initial-events-timeout': Flags.string({
      description: `${scope}${lower('How long a watch-list may go without its k8s.io/initial-events-end bookmark before a `no-initial-events-end` reflector record says so (client-go would wait forever); 0 = never.')}`,
      default: '30s',
    }),
    fallback: Flags.boolean({ description: `${scope}${lower('When a watch-list has no initial-events-end bookmark after --initial-events-timeout, do what a fixed client would: close it and LIST+WATCH for the rest of the run.')}`, default: false }),
  };
}

/** What the informer needs of the three flags: undefined with --no-watch-list. */
export function watchListOptions(flags: { 'watch-list': boolean; 'initial-events-timeout': string; fallback: boolean }): { initialEventsEndTimeoutMs: number; fallbackWithoutInitialEventsEnd: boolean } | undefined {
  if (!flags['watch-list']) return undefined;
  return { initialEventsEndTimeoutMs: parseDuration(flags['initial-events-timeout'], '--initial-events-timeout'), fallbackWithoutInitialEventsEnd: flags.fallback };
}
