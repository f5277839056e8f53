export * from './docker.js';
export { LocalTerminal, type LocalTerminalOptions } from './local-terminal.js';
export { LocalZygote, type ZygoteSpec } from './local-zygote.js';
export { BubblewrapTerminal, type BubblewrapTerminalOptions } from './bubblewrap-terminal.js';
export { type BubblewrapStatus, bubblewrapAvailable, checkBubblewrap } from './bubblewrap-probe.js';
export { PtySession } from './pty-session.js';
export {
  type CreateTerminalConfig,
  type KubernetesTerminalConfig,
  type TerminalType,
  KUBERNETES_PACKAGE,
  TERMINAL_TYPES,
  autoTerminalOverride,
  createTerminal,
} from './create-terminal.js';
export { type GcOptions, type GcReport, type KubernetesGcTarget, type Reclaimed, type ReclaimedKind, gc, sweepStaleLeases } from './gc.js';
export { importOptionalPackage } from './optional-package.js';
export { Lease, type LeaseRecord, leaseDirectory } from './leases.js';
export { PooledTerminal, SandboxPool, type SandboxPoolOptions, createSandboxPool } from './sandbox-pool.js';
