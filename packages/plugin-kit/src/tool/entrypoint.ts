/**
 * Point an entrypoint at the configured interpreter: a leading `python`/`python3` becomes
 * `python`, a leading `pytest` becomes `<python> -m pytest`; anything else is left alone.
 */
export function normalizeEntrypoint(entrypoint: string, python: string): string {
  const trimmed = entrypoint.trim();
  const match = /^(\S+)(\s+[\s\S]*)?$/.exec(trimmed);
  if (!match) return trimmed;
  const [, first = '', rest = ''] = match;
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
