// What happens to a reconciler's writes (--writes); its own file so the command's flag reads it without loading the write path.
export const WRITE_MODES = ['intercept', 'overlay', 'server-dry-run', 'apply'] as const;
export type WriteMode = (typeof WRITE_MODES)[number];
