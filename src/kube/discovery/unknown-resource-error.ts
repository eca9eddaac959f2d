// The user named a resource type the server does not serve (kubectl's wording).

export class UnknownResourceTypeError extends Error {
  constructor(readonly input: string) {
    super(`the server doesn't have a resource type "${input}"`);
    this.name = 'UnknownResourceTypeError';
  }
}
