import { BenchmarkDataError, UnknownTaskError } from '@debug-gym/spec';
import { SWESMITH_SPLITS } from './splits.js';

/**
 * What `--tasks` entries select, as the original's `filter_problems` reads them, plus two forms it
 * does not have:
 * - an instance id;
 * - `all` (every instance but the split `excluded`), or a split name (`train-789`, `test-125`, `excluded`);
 * - `repo:<owner/name>`: every instance of that repository (case-insensitive; matched against the
 *   repository the image name names, the `repo` field and the id's prefix);
 * - `re:<pattern>` or `/<pattern>/`: every instance whose id the regular expression matches.
 */
export type Selector = { kind: 'id'; id: string } | { kind: 'all' } | { kind: 'split'; name: string; ids: ReadonlySet<string> } | { kind: 'repo'; repo: string } | { kind: 'regex'; pattern: RegExp; text: string };

export function parseSelectors(benchmark: string, entries: readonly string[] | undefined, splits: Readonly<Record<string, readonly string[]>> = SWESMITH_SPLITS): Selector[] {
  if (!entries || entries.length === 0) return [{ kind: 'all' }];
  return entries.map((entry): Selector => {
    if (entry === 'all') return { kind: 'all' };
    if (entry.startsWith('repo:')) return { kind: 'repo', repo: entry.slice(5).toLowerCase() };
    const regex = entry.startsWith('re:') ? entry.slice(3) : entry.length > 2 && entry.startsWith('/') && entry.endsWith('/') ? entry.slice(1, -1) : null;
    if (regex !== null) {
      try {
        // eslint-disable-next-line no-restricted-syntax -- the operator's own --tasks filter (a CLI argument), matched against task ids
        return { kind: 'regex', pattern: new RegExp(regex), text: entry };
      } catch (error) {
        throw new BenchmarkDataError(benchmark, `--tasks ${entry}: not a valid regular expression (${(error as Error).message})`, { fix: 'write re:<pattern> with a JavaScript regular expression, e.g. re:^pallets__' });
      }
    }
    const split = splits[entry];
    if (split && entry !== 'all') return { kind: 'split', name: entry, ids: new Set(split) };
    return { kind: 'id', id: entry };
  });
}

/** The repository names an instance answers to for `repo:` (lowercase). */
export interface SelectableInstance {
  id: string;
  repos: readonly string[];
}

/**
 * Streams candidates through the selectors and keeps the selected ones in the order the selectors
 * name them (ids in the given order; each pattern's matches in file order); duplicates once.
 */
export class Selection<T> {
  private readonly matches: T[][];
  private readonly counts: number[];
  private readonly seenIds: string[] = [];
  private readonly excluded: ReadonlySet<string>;
  private readonly wanted: Set<string>;
  readonly onlyIds: boolean;

  constructor(
    private readonly benchmark: string,
    private readonly selectors: readonly Selector[],
    excluded: readonly string[] = SWESMITH_SPLITS.excluded ?? [],
    /** Keep the selected values for `result()` (false when the caller streams them on). */
    private readonly retain = true,
  ) {
    this.matches = selectors.map(() => []);
    this.counts = selectors.map(() => 0);
    this.excluded = new Set(excluded);
    this.wanted = new Set(selectors.flatMap((selector) => (selector.kind === 'id' ? [selector.id] : [])));
    this.onlyIds = selectors.every((selector) => selector.kind === 'id');
  }

  /** All the ids asked for by name were seen (with only ids, reading can stop). */
  get complete(): boolean {
    return this.wanted.size === 0;
  }

  /**
   * Offer one candidate: when a selector keeps it, `make()` builds its value (only then: a row no
   * selector wants is never parsed further), which is returned; else null.
   */
  offer(candidate: SelectableInstance, make: () => T): T | null {
    this.seenIds.push(candidate.id);
    let value: T | null = null;
    this.selectors.forEach((selector, index) => {
      let hit = false;
      if (selector.kind === 'id') hit = selector.id === candidate.id;
      else if (selector.kind === 'all') hit = !this.excluded.has(candidate.id);
      else if (selector.kind === 'split') hit = selector.ids.has(candidate.id);
      else if (selector.kind === 'repo') hit = candidate.repos.includes(selector.repo);
      else hit = selector.pattern.test(candidate.id);
      if (hit) {
        value ??= make();
        if (this.retain) (this.matches[index] as T[]).push(value);
        this.counts[index] = (this.counts[index] as number) + 1;
      }
    });
    this.wanted.delete(candidate.id);
    return value;
  }

  /** The selected values; an id never seen, or a pattern that selected nothing, is an error naming the known ids. */
  result(): T[] {
    const unknown = this.selectors.flatMap((selector, index) => (this.counts[index] === 0 && selector.kind !== 'all' ? [selectorText(selector)] : []));
    if (unknown.length > 0) throw new UnknownTaskError(this.benchmark, unknown, this.seenIds);
    const out: T[] = [];
    const seen = new Set<T>();
    for (const list of this.matches) {
      for (const value of list) {
        if (seen.has(value)) continue;
        seen.add(value);
        out.push(value);
      }
    }
    return out;
  }
}

function selectorText(selector: Selector): string {
  switch (selector.kind) {
    case 'id':
      return selector.id;
    case 'split':
      return selector.name;
    case 'repo':
      return `repo:${selector.repo}`;
    case 'regex':
      return selector.text;
    default:
      return 'all';
  }
}
