/** What a real terminal answered, call by call, for the no-op terminal to answer again. */
export type Outcome = { value: unknown } | { error: unknown };

/** Scoring runs use a fresh random folder each time (`/tmp/debug-gym-score-<hex>`): one key for all of them. */
function stable(key: string): string {
  return key.replace(/debug-gym-score-[0-9a-f]+/g, 'debug-gym-score-*');
}

export class Recording {
  private readonly outcomes = new Map<string, Outcome[]>();
  private readonly cursors = new Map<string, number>();
  kind = 'local';
  workdir = '/workspace';
  python = 'python3';

  add(given: string, outcome: Outcome): void {
    const key = stable(given);
    const list = this.outcomes.get(key);
    if (list) list.push(outcome);
    else this.outcomes.set(key, [outcome]);
  }

  get size(): number {
    return this.outcomes.size;
  }

  /** The next recorded outcome for `key`, cycling through them in the order they happened; null if none. */
  next(given: string): Outcome | null {
    const key = stable(given);
    const list = this.outcomes.get(key);
    if (!list || list.length === 0) return null;
    const cursor = this.cursors.get(key) ?? 0;
    this.cursors.set(key, cursor + 1);
    return list[cursor % list.length] as Outcome;
  }
}
