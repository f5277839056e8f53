import type { PausedProcesses } from '@debug-gym/core';
import type { HelperResponse } from './docker-helper-client.js';

/**
 * `Terminal.pauseProcesses()` for a sandbox served by the in-sandbox helper (bubblewrap, Docker,
 * Kubernetes): the helper stops every process but its own, its ancestors and the fork servers with
 * their standbys, and waits until every thread shows stopped (see `op_pause` in the helper source).
 */
export async function pauseThroughHelper(call: (op: string, params: Record<string, unknown>) => Promise<HelperResponse>): Promise<PausedProcesses> {
  const answer = await call('pause', {});
  let resumed: Promise<void> | undefined;
  return {
    paused: Number(answer.paused ?? 0),
    killed: Number(answer.killed ?? 0),
    resume: () => (resumed ??= call('resume', {}).then(() => undefined)),
  };
}
