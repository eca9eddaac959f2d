// Maps any error to the one line the user sees and an exit code (kubectl wording where kubectl has one).
import { ConnectionError, KwatchError, StatusError } from '../informer/errors.js';
import { FirstContactError } from '../kube/http/first-contact.js';
import { maskUrlPasswords } from '../kube/http/server-url.js';
import { UnexpectedAnswerError } from '../kube/http/unexpected-answer.js';
import { escapeForTerminal } from '../render/terminal-escape.js';
import { UserError } from './user-error.js';

export interface ErrorReport {
  message: string;
  exitCode: number;
  /** True when the error is a kwatch bug rather than something the user can fix. */
  bug: boolean;
}

/** What the failed command was doing, for hints the error alone cannot give. */
export interface ErrorContext {
  /** It read a namespaced resource across every namespace (-A, or a command whose default is every namespace). */
  acrossNamespaces?: boolean;
}

/**
 * The one line for `err`: any password in a URL masked (a server may echo the address it was given), and
 * control characters escaped (messages quote server text: a Status message, an admission webhook's denial).
 */
export function describeError(err: unknown, context: ErrorContext = {}): ErrorReport {
  const report = describe(err, context);
  return { ...report, message: escapeForTerminal(maskUrlPasswords(report.message), { multiline: true }) };
}

function describe(err: unknown, context: ErrorContext): ErrorReport {
  if (err instanceof UserError) return { message: err.message, exitCode: err.exitCode, bug: false };
  // The server's own error first, then why kwatch stopped retrying it.
  if (err instanceof FirstContactError) return { message: `${describeError(err.last).message}; ${err.message}`, exitCode: 1, bug: false };
  if (err instanceof StatusError) {
    // kubectl's words for a 401; the Status message ("Unauthorized") adds nothing.
    if (err.httpCode === 401) return { message: `You must be logged in to the server (Unauthorized): the server did not accept the credentials of the kubeconfig's user`, exitCode: 1, bug: false };
    // RBAC that allows some namespaces but not the cluster scope (a namespaced Role): the way out is -n.
    if (err.httpCode === 403 && context.acrossNamespaces && / at the cluster scope$/.test(err.message)) {
      return { message: `Error from server (Forbidden): ${err.message} (reading every namespace needs access to all of them: use -n NAMESPACE for one you may read)`, exitCode: 1, bug: false };
    }
    const reason = err.reason && err.reason !== 'Unknown' ? err.reason : `${err.httpCode}`;
    return { message: `Error from server (${reason}): ${err.message}`, exitCode: 1, bug: false };
  }
  if (err instanceof UnexpectedAnswerError) return { message: err.message, exitCode: 1, bug: false };
  // Without a system code the server was reached and answered something unusable (a malformed list body,
  // a watch refused with an odd status): "unable to connect" and the kubeconfig hint would mislead.
  if (err instanceof ConnectionError && !err.sysCode) return { message: err.message, exitCode: 1, bug: false };
  if (err instanceof ConnectionError) {
    return { message: `Unable to connect to the server: ${err.message} (check the server address in your kubeconfig, or try --sim)`, exitCode: 1, bug: false };
  }
  if (err instanceof KwatchError) return { message: err.message, exitCode: 1, bug: false };
  if (err instanceof Error) {
    // oclif parse errors and kube config errors carry a usable message and are the user's to fix.
    const name = err.constructor?.name ?? '';
    if (/^(FileWriteError|NotOwnFileError|KubeconfigError|CatalogError|UnknownResourceTypeError|CLIError|RequiredArgsError|FailedFlagValidationError|NonExistentFlagsError|UnexpectedArgsError)$/.test(name) || (err as { oclif?: unknown }).oclif) {
      return { message: err.message, exitCode: 1, bug: false };
    }
    return { message: `internal error: ${err.message} (this is a kwatch bug; rerun with -v 6 to see the stack)`, exitCode: 2, bug: true };
  }
  return { message: `internal error: ${String(err)}`, exitCode: 2, bug: true };
}

/** The one stderr line announcing a retry of the first contact: what failed, and when it is tried again. */
export function retryLine(what: string, error: unknown, delayMs: number): string {
  const text = error instanceof ConnectionError ? `Unable to connect to the server: ${error.message}` : describeError(error).message;
  // A server's message may end with a full stop ("…try again later."): not before the semicolon.
  return `kwatch: ${what}: ${text.replace(/[.\s]+$/, '')}; retrying in ${(delayMs / 1000).toFixed(1)}s`;
}
