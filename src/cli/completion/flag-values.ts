// Values of the flags whose definitions cannot carry an oclif `options` list because they take more than one
// fixed word (a comma-separated list, `label:KEY`, an open-ended -o): the constants their parsers check
// against (STAGES for --stages, INDEX_SPECS for --by; -o offers the global flag's formats, of which each
// command accepts a subset). Light modules only: `__complete` must start fast.
import { INDEX_SPECS } from '../../informer/index-funcs.js';
import { STAGES } from '../../informer/trace.js';
import { OUTPUT_FORMATS } from '../output-formats.js';

export interface FlagValues {
  values: readonly string[];
  /** The flag takes a comma-separated list: complete the word after the last comma. */
  commaList?: boolean;
}

/** By flag name (every command spells these flags the same way). */
export const FLAG_VALUES: Readonly<Record<string, FlagValues>> = {
  output: { values: OUTPUT_FORMATS },
  stages: { values: [...STAGES, 'all'], commaList: true },
  by: { values: INDEX_SPECS },
};
