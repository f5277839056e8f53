import { validateArguments } from '@debug-gym/plugin-kit';
import { DebugGymError, type EnvInfo, type ToolSchema } from '@debug-gym/spec';
import type { McpEnv, McpEnvFactory } from './mcp-env.js';
import { McpSessionClosedError } from './mcp-errors.js';

/** One tool call's outcome, before it becomes an MCP result. */
export interface ToolOutcome {
  text: string;
  /** The call did not run as asked (unknown tool, bad arguments, env failure, lost sandbox). */
  isError: boolean;
}

const NEXT_CALL_RESETS = 'Your next call starts a fresh sandbox with a fresh copy of the repository.';
const FRESH_SANDBOX_NOTE =
  'Note: the previous sandbox was lost, so debug-gym started a fresh copy of the repository (earlier changes and breakpoints are gone).';

/**
 * One environment behind one MCP connection. `start()` builds and resets it (eagerly: the MCP
 * `initialize` answer already carries its instructions and tools); calls run one at a time, in
 * order, because the env is stateful; after a fatal sandbox error the next call resets it first.
 * `close()` is idempotent and closes the env (killing its sandbox) even while a call runs.
 */
export class EnvSession {
  private env: McpEnv | undefined;
  private info: EnvInfo | undefined;
  private closed = false;
  private needsReset = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;

  constructor(private readonly createEnv: McpEnvFactory) {}

  /** Build and reset the env. Returns the reset info (instructions, tools). */
  async start(): Promise<EnvInfo> {
    if (this.closed) throw new McpSessionClosedError();
    const env = await this.createEnv();
    this.env = env;
    if (this.closed) {
      await env.close();
      throw new McpSessionClosedError();
    }
    this.info = await env.reset();
    return this.info;
  }

  /** The tools of the env, as function-calling schemas (after `start()`). */
  get tools(): ToolSchema[] {
    return this.info?.tools ?? [];
  }

  /** The env's instructions (after `start()`). */
  get instructions(): string {
    return this.info?.instructions ?? '';
  }

  /** Run one tool call after the ones before it. Never throws: failures are error outcomes. */
  call(name: string, args: unknown): Promise<ToolOutcome> {
    const run = this.queue.then(() => this.run(name, args));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      await this.env?.close();
    })();
    return this.closing;
  }

  private async run(name: string, args: unknown): Promise<ToolOutcome> {
    if (this.closed || !this.env) return { text: new McpSessionClosedError().message, isError: true };
    const tool = this.tools.find((schema) => schema.function.name === name);
    if (!tool) return { text: `Tool '${name}' not found among available tools: ${this.tools.map((schema) => schema.function.name).join(', ')}.`, isError: true };
    const check = validateArguments(name, tool.function.parameters, args);
    if (!check.ok) return { text: check.message, isError: true };
    try {
      const note = this.needsReset ? await this.resetAfterFatalError() : undefined;
      const info = await this.env.step({ name, arguments: check.args });
      const text = note ? `${note}\n\n${info.stepObservation.observation}` : info.stepObservation.observation;
      if (info.terminationReason === 'fatal_error') {
        this.needsReset = true;
        return { text: `${text}\n\n${NEXT_CALL_RESETS}`, isError: true };
      }
      return { text, isError: false };
    } catch (error) {
      if (this.closed) return { text: new McpSessionClosedError().message, isError: true };
      return { text: describeFailure(error), isError: true };
    }
  }

  private async resetAfterFatalError(): Promise<string> {
    this.info = await (this.env as McpEnv).reset();
    this.needsReset = false;
    return FRESH_SANDBOX_NOTE;
  }
}

function describeFailure(error: unknown): string {
  if (DebugGymError.isInstance(error)) return `debug-gym could not run the call (${error.code}): ${error.message}`;
  process.stderr.write(`debug-gym mcp: internal error during a tool call:\n${(error as Error)?.stack ?? String(error)}\n`);
  return `debug-gym could not run the call: internal error (${error instanceof Error ? error.message : String(error)}).`;
}
