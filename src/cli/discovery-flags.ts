// The discovery cache flags (--cache-dir, --discovery-ttl), shared by every command that resolves
// resource names, and their translation into DiscoveryClient options.
import { Flags } from '@oclif/core';
import { parseDuration } from './duration.js';
import { retryLine } from './error-message.js';
import type { DiscoveryClientOptions } from '../kube/discovery/discovery-client.js';
import { DEFAULT_FIRST_CONTACT_MS } from '../kube/http/first-contact.js';

export const discoveryFlags = {
  'cache-dir': Flags.string({ description: 'Default cache directory (default: $KUBECACHEDIR, then ~/.kube/cache; shared with kubectl; with --sim: in memory for the run).', helpGroup: 'DISCOVERY' }),
  'discovery-ttl': Flags.string({ description: 'How long cached discovery files stay valid, from their modification time (kubectl: 6h).', default: '6h', helpGroup: 'DISCOVERY' }),
};

export interface DiscoveryFlagValues {
  'cache-dir'?: string;
  'discovery-ttl'?: string;
  /** The global flag: also the first-contact deadline. */
  'request-timeout'?: string;
}

/** DiscoveryClient options from parsed flags; warnings go to stderr as kubectl's do. */
export function discoveryOptionsFromFlags(flags: DiscoveryFlagValues, warn: (message: string) => void = (m) => process.stderr.write(`Warning: ${m}\n`)): DiscoveryClientOptions {
  return {
    cacheDir: flags['cache-dir'] || undefined,
    ttlMs: flags['discovery-ttl'] ? parseDuration(flags['discovery-ttl'], '--discovery-ttl', { timer: false }) : undefined,
    warn,
    firstContact: {
      deadlineMs: (flags['request-timeout'] ? parseDuration(flags['request-timeout'], '--request-timeout') : 0) || DEFAULT_FIRST_CONTACT_MS,
      onRetry: ({ what, error, delayMs }) => process.stderr.write(`${retryLine(what, error, delayMs)}\n`),
    },
  };
}
