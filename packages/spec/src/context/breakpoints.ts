/** One pdb breakpoint, kept by the env so it survives debugger restarts. */
export interface Breakpoint {
  /** Absolute path inside the sandbox. */
  file: string;
  line: number;
  /** Python expression for a conditional breakpoint. */
  condition?: string;
  /** Deleted by pdb when first hit (`tbreak`). */
  temporary?: boolean;
  /** False for a breakpoint disabled with `disable`. */
  enabled?: boolean;
}

/**
 * The env's breakpoint state as tools see it (`context.breakpoints`): what `view` marks, what pdb
 * restores after a restart. Exactly the members the bundled tools use; core's `BreakpointStore`
 * implements it (and more: `add`, `remove`, `shift`).
 */
export interface ToolBreakpoints {
  /** Number of breakpoints. */
  readonly size: number;
  /** Sorted by file, then line. */
  list(): Breakpoint[];
  has(file: string, line: number): boolean;
  clear(): void;
  /** Replace the whole state (e.g. with what pdb reports). */
  replace(breakpoints: readonly Breakpoint[]): void;
  /** Lines with a breakpoint in `file`. */
  linesIn(file: string): Set<number>;
  /** The original's text form: `No breakpoints are set.` or `line N in <path>` lines. */
  describe(): string;
}
