import type { Breakpoint, ToolBreakpoints } from '@debug-gym/spec';

function key(file: string, line: number): string {
  return `${file}:${line}`;
}

/** The env's breakpoint state: what `view` marks, what pdb restores after a restart. */
export class BreakpointStore implements ToolBreakpoints {
  private readonly byKey = new Map<string, Breakpoint>();

  /** Sorted by file, then line. */
  list(): Breakpoint[] {
    return [...this.byKey.values()].sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  }

  get size(): number {
    return this.byKey.size;
  }

  has(file: string, line: number): boolean {
    return this.byKey.has(key(file, line));
  }

  add(breakpoint: Breakpoint): void {
    this.byKey.set(key(breakpoint.file, breakpoint.line), { ...breakpoint });
  }

  remove(file: string, line: number): boolean {
    return this.byKey.delete(key(file, line));
  }

  clear(): void {
    this.byKey.clear();
  }

  /** Replace the whole state (e.g. with what pdb reports). */
  replace(breakpoints: readonly Breakpoint[]): void {
    this.byKey.clear();
    for (const breakpoint of breakpoints) this.add(breakpoint);
  }

  /** Lines with a breakpoint in `file`. */
  linesIn(file: string): Set<number> {
    return new Set(this.list().filter((bp) => bp.file === file).map((bp) => bp.line));
  }

  /**
   * Follow a rewrite of lines `start..end` (1-based, inclusive) in `file` by `newLineCount` lines:
   * breakpoints inside the range are dropped, those below shift by the line delta. A whole-file
   * rewrite (`start: null`) drops every breakpoint of the file.
   */
  shift(file: string, start: number | null, end: number | null, newLineCount: number): void {
    const all = this.list();
    const kept = all.filter((bp) => bp.file !== file);
    if (start !== null) {
      const last = end ?? start;
      for (const bp of all) {
        if (bp.file !== file) continue;
        if (bp.line < start) kept.push(bp);
        else if (bp.line > last) kept.push({ ...bp, line: bp.line + newLineCount - (last - start + 1) });
      }
    }
    this.replace(kept);
  }

  /** The original's text form: `No breakpoints are set.` or `line N in <path>` lines. */
  describe(): string {
    if (this.byKey.size === 0) return 'No breakpoints are set.';
    return this.list()
      .map((bp) => {
        const extras = [bp.condition ? `if ${bp.condition}` : '', bp.temporary ? '(temporary)' : '', bp.enabled === false ? '(disabled)' : '']
          .filter(Boolean)
          .join(' ');
        return `line ${bp.line} in ${bp.file}${extras ? ` ${extras}` : ''}`;
      })
      .join('\n');
  }
}
