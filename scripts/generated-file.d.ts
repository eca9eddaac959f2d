export function staleMessage(name: string, committed: string | undefined, fresh: string, update: string): string | undefined;
