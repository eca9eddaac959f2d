export function staleMessage(name: string, committed: string | undefined, fresh: string, update: string): string | undefined;
export function readOrUndefined(file: string): string | undefined;
export function writeOrCheck(name: string, file: string, fresh: string, update: string): void;
