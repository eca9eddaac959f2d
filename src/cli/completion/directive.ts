// cobra's ShellCompDirective: the number `__complete` prints last (`:4`), telling the shell script what to
// do with the candidates. The same numbers kubectl and every cobra program use, so kubectl can drive ours.
export const Directive = {
  /** Let the shell also complete file names when no candidate matches. */
  Default: 0,
  /** Something failed: complete nothing. */
  Error: 1,
  /** Add no space after the completion (a value that goes on, e.g. after a comma or `label:`). */
  NoSpace: 2,
  /** Never fall back to file names. */
  NoFileComp: 4,
  /** Candidates are file extensions to filter file names by. */
  FilterFileExt: 8,
  /** Complete directory names only (a candidate, when given, is the folder to start in). */
  FilterDirs: 16,
  /** Keep the candidates in the order given. */
  KeepOrder: 32,
} as const;
