// `Warning: …` lines on stderr. They quote server text (why a discovery request failed), so control
// characters are escaped as in every other human-readable output.
import { escapeForTerminal } from '../render/terminal-escape.js';

export function printWarning(message: string): void {
  process.stderr.write(`Warning: ${escapeForTerminal(message, { multiline: true })}\n`);
}
