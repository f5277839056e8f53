/**
 * The run's warm sandbox pools (`terminal.pool_size`): one SandboxPool per distinct terminal config
 * (every task of mini-nightmare or Aider shares one; SWE-bench instances, each with its own image, do
 * not benefit), closed when the run ends.
 */
import type { Terminal } from '@debug-gym/core';
import { type CreateTerminalConfig, SandboxPool, createTerminal } from '@debug-gym/terminal';

export class TerminalPools {
  private readonly pools = new Map<string, Promise<SandboxPool>>();

  constructor(private readonly size: number) {}

  /** A terminal for one episode: pooled when the run has a pool size, else a plain one. */
  async terminal(config: CreateTerminalConfig): Promise<Terminal> {
    if (this.size <= 0) return createTerminal(config);
    const key = JSON.stringify(config);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = SandboxPool.create({ size: this.size, create: () => createTerminal(config) });
      this.pools.set(key, pool);
    }
    return (await pool).terminal();
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map(async (pool) => (await pool.catch(() => undefined))?.close()));
  }
}
