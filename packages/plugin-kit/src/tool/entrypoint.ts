/**
 * Point an entrypoint at the configured interpreter: a leading `python`/`python3` becomes
 * `python`, a leading `pytest` becomes `<python> -m pytest`; anything else is left alone.
 */
export function normalizeEntrypoint(entrypoint: string, python: string): string {
  const trimmed = entrypoint.trim();
  if (trimmed === '') return trimmed;
  // The first word and the rest (from the whitespace after it): a scan, not a backtracking regex.
  let end = 0;
  while (end < trimmed.length && (trimmed[end] as string).trim() !== '') end += 1;
  const first = trimmed.slice(0, end);
  const rest = trimmed.slice(end);
  if (first === 'python' || first === 'python3') return `${python}${rest}`;
  if (first === 'pytest') return `${python} -m pytest${rest}`;
  return trimmed;
}

/** The original's rule: the debug entrypoint runs the entrypoint under `-m pdb` unless it already does. */
export function defaultDebugEntrypoint(entrypoint: string, python: string): string {
  const normalized = normalizeEntrypoint(entrypoint, python);
  if (normalized.includes(' -m pdb')) return normalized;
  if (normalized.startsWith(`${python} `)) return `${python} -m pdb ${normalized.slice(python.length + 1)}`;
  return normalized;
}
