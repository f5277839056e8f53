import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { parseMemory } from '@debug-gym/terminal';
import { BudgetExhaustedError, SandboxOverBudgetError, type BudgetNumbers } from '../errors.js';
import type { TerminalParams } from '../params/reset-params.js';

const GiB = 1024 ** 3;

/** What one session's sandbox may take from the host at most: its memory limit and its process limit. */
export interface SandboxClaim {
  memoryBytes: number;
  pids: number;
}

/** The host resources all sandboxes together may claim. */
export interface HostBudget {
  memoryBytes: number;
  pids: number;
}

/**
 * A sandbox whose reset sets no limits: the terminal package's defaults (Docker and bubblewrap
 * alike: 2 GiB of memory, 1024 processes). A local terminal has no limits; it is counted the same.
 */
export const DEFAULT_CLAIM: Readonly<SandboxClaim> = { memoryBytes: 2 * GiB, pids: 1024 };

/** Kept for the server process itself and the rest of the host. */
export const RESERVED_MEMORY_BYTES = GiB;
export const RESERVED_PIDS = 4096;

/** Sessions a server allows when the operator sets none: what fits the host, at most this many. */
export const MAX_DERIVED_SESSIONS = 64;

/** The most a sandbox of these terminal params may take (a Kubernetes pod runs on the cluster's nodes: nothing here). */
export function claimOf(terminal: TerminalParams): SandboxClaim {
  if (terminal.type === 'kubernetes') return { memoryBytes: 0, pids: 0 };
  const memoryBytes = terminal.memory === undefined ? DEFAULT_CLAIM.memoryBytes : memoryOf(terminal.memory);
  const dockerPids = terminal.pidsLimit ?? DEFAULT_CLAIM.pids;
  const jailPids = terminal.maxProcesses ?? DEFAULT_CLAIM.pids;
  // `auto` may start either sandbox, each reading its own option; a local terminal enforces none (counted as asked).
  const pids =
    terminal.type === 'docker' ? dockerPids : terminal.type === 'bubblewrap' ? jailPids : terminal.type === 'auto' ? Math.max(dockerPids, jailPids) : (terminal.maxProcesses ?? terminal.pidsLimit ?? DEFAULT_CLAIM.pids);
  return { memoryBytes, pids };
}

function memoryOf(value: number | string): number {
  try {
    return parseMemory(value);
  } catch {
    // The terminal refuses it with its own message; count the default meanwhile.
    return DEFAULT_CLAIM.memoryBytes;
  }
}

/**
 * This host's budget: its memory (Node's `os.totalmem()`) and the kernel's process-id space
 * (`/proc/sys/kernel/pid_max`, or `threads-max` when lower), each less a reserve for the server
 * itself and everything else on the host.
 */
export function hostBudget(readProc: (path: string) => string = (path) => readFileSync(path, 'utf8')): HostBudget & { totalMemoryBytes: number; pidMax: number } {
  const number = (path: string, fallback: number): number => {
    try {
      const value = Number(readProc(path).trim());
      return Number.isInteger(value) && value > 0 ? value : fallback;
    } catch {
      return fallback;
    }
  };
  // 32768 is Linux's default pid_max.
  const pidMax = Math.min(number('/proc/sys/kernel/pid_max', 32_768), number('/proc/sys/kernel/threads-max', Number.MAX_SAFE_INTEGER));
  const totalMemoryBytes = totalmem();
  return {
    totalMemoryBytes,
    pidMax,
    memoryBytes: Math.max(0, totalMemoryBytes - RESERVED_MEMORY_BYTES),
    pids: Math.max(0, pidMax - RESERVED_PIDS),
  };
}

/** How many default sandboxes fit `budget` (at least 1, at most MAX_DERIVED_SESSIONS). */
export function derivedMaxSessions(budget: HostBudget): number {
  const fit = Math.min(Math.floor(budget.memoryBytes / DEFAULT_CLAIM.memoryBytes), Math.floor(budget.pids / DEFAULT_CLAIM.pids));
  return Math.max(1, Math.min(MAX_DERIVED_SESSIONS, fit));
}

/**
 * Admission against the budget: a new claim is admitted when the claims already held plus it stay
 * within the budget; one that could never fit is refused for good (SandboxOverBudgetError), one
 * that does not fit now is refused until sessions close (BudgetExhaustedError, 503 + Retry-After).
 */
export function admit(budget: HostBudget, held: SandboxClaim, claim: SandboxClaim, retryAfterSeconds: () => number): void {
  const numbers: BudgetNumbers = {
    memory_bytes: { requested: claim.memoryBytes, in_use: held.memoryBytes, budget: budget.memoryBytes },
    pids: { requested: claim.pids, in_use: held.pids, budget: budget.pids },
  };
  if (claim.memoryBytes > budget.memoryBytes || claim.pids > budget.pids) throw new SandboxOverBudgetError(numbers);
  if (held.memoryBytes + claim.memoryBytes > budget.memoryBytes || held.pids + claim.pids > budget.pids) throw new BudgetExhaustedError(numbers, retryAfterSeconds());
}
