// The one-line error for a controller module that cannot be used: it names the file (and the line,
// when one is known), so the CLI prints it as is and exits 1.
import { KwatchError } from '../informer/errors.js';

export class ControllerModuleError extends KwatchError {
  constructor(
    message: string,
    /** The module's absolute path. */
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super('CONTROLLER_MODULE', message, options);
  }
}
