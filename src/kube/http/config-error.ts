// A kubeconfig the user must fix: missing, malformed, or naming a context/cluster/user it lacks.

export class KubeconfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KubeconfigError';
  }
}
