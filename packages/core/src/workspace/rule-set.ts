import ignore, { type Ignore } from 'ignore';

const GLOB_CHARACTERS = /[*?[\\]/;

/**
 * A negation that names its place: `!data/unignore/*` (a `/` inside the pattern, and a first folder
 * with no wildcard). `dirs` are the folders on its literal path (`data`, `data/unignore`): listings
 * go through them so that what it re-includes can be reached.
 */
interface ExplicitNegation {
  dirs: string[];
}

/** A rule of its own, to tell which rules match a path. */
interface SingleRule {
  kind: 'ignore' | 'negation' | 'explicit';
  matcher: Ignore;
}

/**
 * gitignore patterns (via the `ignore` package), with one exception to git's rule that nothing inside
 * an excluded folder can be re-included: a later negation that names a path inside the folder
 * re-includes it, as the original debug-gym's matcher did (`data/` then `!data/unignore/*` shows
 * `data/unignore/*` again). A negation that does not name the folder (`!*.py`, `!**\/keep.txt`)
 * cannot reach inside an excluded folder, so a broad re-include never reveals what a folder rule hid.
 */
export class RuleSet {
  private readonly git: Ignore;
  /** Empty when no pattern is an explicit negation: then git's answer is final. */
  private readonly rules: SingleRule[] = [];
  private readonly passages = new Set<string>();

  constructor(patterns: readonly string[]) {
    this.git = ignore().add([...patterns]);
    const explicit = patterns.map(explicitNegation);
    if (!explicit.some(Boolean)) return;
    patterns.forEach((pattern, index) => {
      const negation = explicit[index] ?? null;
      const body = pattern.startsWith('!') ? pattern.slice(1) : pattern;
      if (body.trim() === '' || body.startsWith('#')) return;
      const kind = negation ? 'explicit' : pattern.startsWith('!') ? 'negation' : 'ignore';
      this.rules.push({ kind, matcher: ignore().add(body) });
      for (const dir of negation?.dirs ?? []) this.passages.add(dir);
    });
  }

  /** `relative` uses `/`, no leading `./`; directories are matched with `isDirectory` so `dir/` rules apply. */
  matches(relative: string, isDirectory = false): boolean {
    const path = isDirectory ? `${relative}/` : relative;
    if (!this.git.ignores(path)) return false;
    if (this.rules.length === 0) return true;
    // Git hides it. The last rule matching the path (or a folder above it) decides whether an explicit
    // negation shows it again; other negations are passed over: git already said they cannot reach it.
    for (let index = this.rules.length - 1; index >= 0; index -= 1) {
      const rule = this.rules[index] as SingleRule;
      if (rule.kind === 'negation' || !rule.matcher.ignores(path)) continue;
      if (rule.kind === 'explicit') return false;
      break;
    }
    return !(isDirectory && this.passages.has(relative));
  }
}

function explicitNegation(pattern: string): ExplicitNegation | null {
  if (!pattern.startsWith('!')) return null;
  const body = trimSlashes(pattern.slice(1).trim());
  const segments = body.split('/');
  if (segments.length < 2 || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return null;
  const literal: string[] = [];
  for (const segment of segments) {
    if (GLOB_CHARACTERS.test(segment)) break;
    literal.push(segment);
  }
  if (literal.length === 0) return null;
  // Folders on the way: every literal segment but a last one that names the re-included path itself.
  const folders = literal.length === segments.length ? literal.slice(0, -1) : literal;
  return { dirs: folders.map((_, index) => folders.slice(0, index + 1).join('/')) };
}

/** The text without the slashes that start and end it (a scan, linear whatever the text). */
function trimSlashes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0x2f) start += 1;
  while (end > start && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(start, end);
}
