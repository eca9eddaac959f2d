// cobra's "Did you mean this?": candidates within two edits of what was typed, or starting with it.

/** Names close to `typed` (Levenshtein distance ≤ 2, case-insensitive, or a prefix), closest first. */
export function suggestionsFor(typed: string, candidates: readonly string[], maxDistance = 2): string[] {
  const t = typed.toLowerCase();
  const scored = candidates
    .map((c) => ({ c, d: distance(t, c.toLowerCase()) }))
    .filter(({ c, d }) => d <= maxDistance || (t.length > 0 && c.toLowerCase().startsWith(t)));
  return [...new Set(scored.sort((a, b) => a.d - b.d).map(({ c }) => c))];
}

/** kubectl's block after an unknown command or flag; empty when nothing is close. */
export function didYouMean(suggestions: readonly string[]): string {
  return suggestions.length === 0 ? '' : `\nDid you mean this?\n${suggestions.map((s) => `\t${s}\n`).join('')}`;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}
