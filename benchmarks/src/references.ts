/**
 * The numbers each row is read against: the original Python debug-gym measured on this kind of machine
 * (mini-nightmare, medians) and our targets from the core, terminal and agents issues.
 */
export interface Reference {
  /** The original's median, as text (e.g. `4.4 ms`). */
  original?: string;
  /** Our target: the median must stay below `below` milliseconds. */
  below?: number;
  /** When the target holds only under a condition (e.g. the test run's own time). */
  condition?: string;
}

const PDB_COMMANDS = ['step.pdb-b', 'step.pdb-p', 'step.pdb-n', 'step.pdb-l', 'step.pdb-c-next', 'step.pdb-cl'];

const HOST: Record<string, Reference> = {
  'step.view': { original: '4.4 ms', below: 1 },
  'step.listdir': { original: '2.8 ms', below: 1 },
  'step.rewrite': { original: '320 ms', below: 60 },
  // The fork server's targets (issue 15): from 148 ms (eval), 130 ms (first restart), 172 ms (reset) cold.
  'step.eval': { below: 30, condition: 'through the fork server' },
  'step.rewrite-cold': { below: 20, condition: 'pdb forked by the fork server' },
  'fork.env': { below: 30, condition: 'no live pdb session' },
  reset: { original: '394 ms', below: 200, condition: 'when the first test run itself takes ~145 ms' },
  'reset.pooled': { original: '394 ms', below: 60, condition: 'warm pool: sandbox started, fork server ready' },
  'pdb.round-trip': { below: 2 },
  ...Object.fromEntries(PDB_COMMANDS.map((id) => [id, { original: '~400 ms', below: 15 }])),
};

const DOCKER: Record<string, Reference> = {
  'step.view': { original: '102 ms', below: 10 },
  'step.listdir': { below: 10 },
  reset: { original: '1963 ms', below: 500, condition: 'warm: image present' },
  'reset.pooled': { original: '1963 ms', below: 80, condition: 'warm pool: container started, fork server ready' },
  'step.eval': { below: 30, condition: 'through the fork server' },
  'step.rewrite-cold': { below: 20, condition: 'pdb forked by the fork server' },
};

export function referenceFor(terminal: string, rowId: string): Reference | undefined {
  if (terminal === 'docker') return DOCKER[rowId];
  const reference = HOST[rowId];
  // The original was measured on its local terminal only.
  if (reference && terminal !== 'local') return { ...reference, original: undefined };
  return reference;
}

/** The original ran 8 Docker episodes (reset + 10 steps) in 11.4 s; our target is 4 s. */
export function throughputReference(terminal: string, parallel: number, steps: number): Reference | undefined {
  if (terminal === 'docker' && parallel === 8 && steps === 10) return { original: '11.4 s', below: 4000 };
  return undefined;
}

/**
 * Episodes per minute at 8 parallel (reset + 20 steps) when #15 was filed ("≥ 3× today's"): RESULTS.md
 * of commit 5d835ec, the last run before the fork server, on this machine.
 */
export const BEFORE_FORK_SERVER_EPISODES_PER_MINUTE: Readonly<Record<string, number>> = { local: 106.8, bubblewrap: 99.2, docker: 90.3 };

/** `met`, `MISSED`, or '' when there is no target. */
export function verdict(reference: Reference | undefined, value: number): string {
  if (reference?.below === undefined || !Number.isFinite(value)) return '';
  return value < reference.below ? 'met' : 'MISSED';
}
