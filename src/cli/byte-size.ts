// Parses sizes as Kubernetes quantities spell them ("64Mi", "1Gi", "500k", or plain bytes).
import { UserError } from './user-error.js';

const UNIT_BYTES: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };

/** Returns bytes (at least 1). `flag` names the flag in the error message. */
export function parseByteSize(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(text.trim());
  const bytes = m ? Math.floor(Number(m[1]) * UNIT_BYTES[m[2] ?? '']) : NaN;
  if (!Number.isFinite(bytes) || bytes < 1) throw new UserError(`invalid ${flag} "${text}": use a size such as 64Mi, 256Mi or 1Gi (a bare number means bytes)`);
  return bytes;
}
