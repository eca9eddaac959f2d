// Errors split by blame: a UserError is something the user must fix (one clear line, non-zero exit).

export class UserError extends Error {
  constructor(
    message: string,
    /** Process exit code; 1 unless a command documents otherwise. */
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'UserError';
  }
}
