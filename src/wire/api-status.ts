// kube-apiserver's Status answer carried as an error: what the sim's handlers and kwatch's endpoint throw, and answer
// the request with.

/** A Failure Status body as kube-apiserver writes it. */
export interface StatusBody { kind: 'Status'; apiVersion: 'v1'; metadata: Record<string, unknown>; status: 'Failure'; message: string; reason: string; details?: Record<string, unknown>; code: number }

export class ApiStatusError extends Error {
  constructor(
    /** The full kube-apiserver Status body that the REST API answers with. */
    readonly status: StatusBody,
  ) {
    super(status.message);
  }
}

/** A Failure Status with its code, reason and message (details last, as kube orders the fields). */
export function failureStatus(code: number, reason: string, message: string, details?: Record<string, unknown>): ApiStatusError {
  const status: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new ApiStatusError(status);
}
