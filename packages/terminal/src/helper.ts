/**
 * `@debug-gym/terminal/helper`: the pieces a sandbox backend in another package (Kubernetes) builds
 * on, so that it speaks the same in-sandbox helper protocol as Docker and bubblewrap and every tool
 * behaves the same on it. Not needed to use a terminal.
 */
export { HelperSandbox } from './helper-sandbox.js';
export {
  HelperClient,
  HelperKilledError,
  HelperLostError,
  HelperOpError,
  type HelperResponse,
  LAUNCH_ENV_PREFIX,
  type PtyListener,
} from './docker-helper-client.js';
export { HELPER_BOOTSTRAP, HELPER_BOOTSTRAP_UNDUMPABLE, HELPER_SOURCE } from './docker-helper-source.js';
export { HelperBackedFiles, requireHostDirectory } from './helper-backed-files.js';
export { helperRunResult, runFailure } from './docker-run-result.js';
export { type DockerSession as HelperSession, type HelperSessionRequest, openHelperSession } from './docker-session.js';
export { type PackOptions, type TarOwner, archiveBytes, packDirectory } from './docker-tar.js';
export { SANDBOX_FIXED_ENV } from './sandbox-env.js';
export { processStartTime } from './docker-engine.js';
export { type SandboxUser, DEFAULT_LIMITS } from './docker-limits.js';
export { DEFAULT_FORK_GROUPS, forkServerStatus, forkStartParams, pythonParam } from './fork-server.js';
