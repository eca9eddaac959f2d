// The -o and --stages flags of the commands that print a pipeline trace (events, replay), validated once.
import { OUTPUT_FORMATS, type OutputFormat } from './flags.js';
import { UserError } from './user-error.js';
import type { StageSelection } from '../render/stage-filter.js';

export async function parseTraceViewFlags(flags: { output?: string; stages?: string }): Promise<{ output: OutputFormat; stages?: StageSelection }> {
  const output = (flags.output ?? 'table') as OutputFormat;
  if (!(OUTPUT_FORMATS as readonly string[]).includes(output)) throw new UserError(`--output ${output} is not available: use one of ${OUTPUT_FORMATS.join(', ')}`);
  if (flags.stages === undefined) return { output };
  const { parseStages } = await import('../render/stage-filter.js');
  try {
    return { output, stages: parseStages(flags.stages) };
  } catch (err) {
    throw new UserError(`invalid --stages: ${(err as Error).message}`);
  }
}
