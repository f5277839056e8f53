/**
 * The longest line of `secret` that none of `known` contains (trimmed, at least 12 characters), or
 * null: a marker that can only have come from the secret when it shows up in an observation.
 */
export function distinctiveLine(secret: string, known: readonly string[]): string | null {
  const candidates = [...new Set(secret.split('\n').map((line) => line.trim()))]
    .filter((line) => line.length >= 12 && !known.some((text) => text.includes(line)))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return candidates[0] ?? null;
}

/** The lines a unified diff adds (without the `+`). */
export function addedLines(patch: string): string {
  return patch
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
    .map((line) => line.slice(1))
    .join('\n');
}
