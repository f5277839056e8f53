/**
 * Adversarial texts and a growth measurement for the text-processing functions that run on the
 * server's event loop (issue 26 §2: no agent text meets a backtracking regex). Time is judged as a
 * RATIO between input sizes, never as a wall-clock limit: a linear function takes about `factor`
 * times longer on a `factor` times longer input, a quadratic one `factor²` times. The time is the
 * process's CPU time (load does not inflate it), and the minimum of several trials drops the samples
 * a garbage collection or a cold cache spoiled.
 */

/** What an agent or the code under test can print in long runs: every introducer, separator and digit a parser keys on. */
export const ADVERSARIAL_UNITS: ReadonlyArray<{ name: string; unit: string }> = [
  ...[
    ['ESC', '\u001b'],
    ['8-bit CSI', '\u009b'],
    ['8-bit DCS', '\u0090'],
    ['8-bit OSC', '\u009d'],
    ['8-bit APC', '\u009f'],
    ['BEL', '\u0007'],
    ['CR', '\r'],
    ['LF', '\n'],
    ['space', ' '],
    ['tab', '\t'],
    ['digit', '1'],
    ['underscore', '_'],
    ['equals', '='],
    ['comma', ','],
    ['dot', '.'],
    ['slash', '/'],
    ['backslash', '\\'],
    ['open bracket', '['],
    ['open paren', '('],
    ['open brace', '{'],
    ['less-than', '<'],
    ['backtick', '`'],
    ['quote', '"'],
    ['letter', 'a'],
  ].map(([name, unit]) => ({ name: `run of ${name}`, unit: unit as string })),
  { name: 'ESC [', unit: '\u001b[' },
  { name: 'ESC ] (OSC, unterminated)', unit: '\u001b]0;' },
  { name: 'ESC [ params', unit: '\u001b[1;' },
  { name: 'ESC intermediates', unit: '\u001b(' },
  { name: 'C1 CSI params', unit: '\u009b1;' },
  { name: 'CR LF', unit: '\r\n' },
  { name: 'CR runs', unit: '\r\r\rx' },
  { name: 'digit space', unit: '1 ' },
  { name: 'count word', unit: '1 passed, ' },
  { name: 'rule and space', unit: '= ' },
  { name: 'in duration', unit: ' in 1.' },
  { name: 'collected', unit: 'collected ' },
  { name: 'collection error', unit: '_ ERROR collecting ' },
  { name: 'interrupted', unit: 'Interrupted: 1' },
  { name: 'django split', unit: 'x ... Testing against Django installed in ' },
  { name: 'sympy header', unit: ' .py:' },
  { name: 'option brackets', unit: '[a' },
  { name: 'think tags', unit: '<think>' },
  { name: 'function tags', unit: '<function=a>' },
  { name: 'fences', unit: '```a' },
  { name: 'bearer spaces', unit: 'Bearer ' },
  { name: 'word then space', unit: 'a ' },
  { name: 'dots and slashes', unit: './' },
  { name: 'glob stars', unit: '*a' },
];

/** `unit` repeated to `length` characters, ending in characters that make a match fail late (`x!`). */
/** Whole numbers from a fixed seed (xorshift32): random-looking inputs that are the same on every run. */
export function seededIntegers(seed: number): () => number {
  let state = seed | 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % 1_000_003;
  };
}

export function adversarialText(unit: string, length: number): string {
  return unit.repeat(Math.max(1, Math.ceil(length / unit.length))).slice(0, length) + 'x!';
}

/** CPU milliseconds the process has used (user + system, every thread: the matching worker's too). */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * Milliseconds of CPU per call of `fn(input)`: calls are repeated until `minMs` of CPU time have
 * passed, the best of `trials` such runs is kept. CPU time, not wall time: on a loaded machine a short
 * call fits in one time slice and a long one waits through many, which would inflate the ratio.
 */
export async function timePerCall(fn: (input: string) => unknown, input: string, options: { minMs?: number; trials?: number } = {}): Promise<number> {
  const minMs = options.minMs ?? 20;
  const trials = options.trials ?? 5;
  let best = Number.POSITIVE_INFINITY;
  for (let trial = 0; trial < trials; trial += 1) {
    let calls = 0;
    const started = cpuMs();
    let elapsed = 0;
    do {
      await fn(input);
      calls += 1;
      elapsed = cpuMs() - started;
    } while (elapsed < minMs);
    best = Math.min(best, elapsed / calls);
  }
  return best;
}

export interface Growth {
  /** CPU milliseconds per call at each size. */
  ms: number[];
  /** The ratio of each size's time to the previous one's. */
  ratios: number[];
  /**
   * The smallest of `ratios`: about `factor` for a linear function, `factor²` for a quadratic one. The
   * smallest, because a linear function can still jump once between two sizes where the engine's memory
   * changes tier (V8's young generation, large-object space); a quadratic one grows at every step.
   */
  ratio: number;
}

/**
 * How the time per call grows over `steps` + 1 sizes, each `factor` times the previous, from `small`
 * (CPU time, best of several trials each). Two steps of 8× from 8 K: 8 K, 64 K, 512 K characters.
 */
export async function growth(
  fn: (input: string) => unknown,
  make: (length: number) => string,
  small: number,
  factor: number,
  options: { minMs?: number; trials?: number; steps?: number } = {},
): Promise<Growth> {
  const sizes = Array.from({ length: (options.steps ?? 1) + 1 }, (_, index) => small * factor ** index);
  const inputs = sizes.map(make);
  // Warm up: the first calls compile the function; they must not count for one size only.
  for (const input of inputs) await fn(input);
  const ms: number[] = [];
  for (const input of inputs) ms.push(await timePerCall(fn, input, options));
  const ratios = ms.slice(1).map((value, index) => value / Math.max(ms[index] as number, 1e-6));
  return { ms, ratios, ratio: Math.min(...ratios) };
}
