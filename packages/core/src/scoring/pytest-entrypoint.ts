/**
 * The pytest arguments of an entrypoint that runs pytest (`<python> -m pytest ARGS`, which is what
 * `normalizeEntrypoint` makes of `pytest ARGS` and `python -m pytest ARGS`); null for anything else
 * (a script, `runtests.py`, a shell pipeline), which keeps the parsed-output scoring.
 */
export function pytestArguments(normalizedEntrypoint: string, python: string): string | null {
  const prefix = `${python} -m pytest`;
  if (normalizedEntrypoint !== prefix && !normalizedEntrypoint.startsWith(`${prefix} `)) return null;
  const rest = normalizedEntrypoint.slice(prefix.length);
  // Only plain arguments: a `;`, `&&`, `|`, redirection or substitution means more than one pytest run.
  if (/[;&|<>`$()\n\\]/.test(rest)) return null;
  return rest;
}
