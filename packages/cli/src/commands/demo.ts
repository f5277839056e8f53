import { dirname, resolve } from 'node:path';
import { createAgent, createReplayModel, loadReplaySource, type EpisodeResult } from '@debug-gym/agents';
import { RepoEnv, type ToolCall } from '@debug-gym/core';
import { createTerminal, type TerminalType } from '@debug-gym/terminal';
import { toToolSpec } from '../bundled-tools.js';
import { ConfigError } from '../config/config-error.js';
import { ExitError } from '../exit-error.js';
import { demoDir } from '../paths.js';
import { describeCall } from '../runner/step-log.js';

/** `demo/session.json` (in this package): the calls to replay and the repository they fix. */
export interface DemoSession {
  description: string;
  /** The repository, relative to the session file. */
  repository: string;
  entrypoint: string;
  tools?: string[];
  steps: ToolCall[];
}

export interface DemoOptions {
  session?: string;
  terminal?: TerminalType;
  python?: string;
  write?: (text: string) => void;
}

/**
 * Observations are shown behind a bar: the demo's first evaluation prints pytest's own `FAILED test_…` lines,
 * which a log scanner (CI's included) would otherwise count as failures of the run itself.
 */
function quote(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end -= 1;
  return text
    .slice(0, end)
    .split('\n')
    .map((line) => (line ? `  │ ${line}` : '  │'))
    .join('\n');
}

/**
 * `debug-gym demo`: the real `debug_agent` on the package's demo/repo, driven by the `replay` model fed
 * with demo/session.json. Every step is labelled SCRIPTED: no LLM, no API key, no Docker.
 */
export async function runDemo(options: DemoOptions = {}): Promise<EpisodeResult> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const sessionPath = resolve(options.session ?? `${demoDir}session.json`);
  const session = (await loadReplaySource(sessionPath)) as unknown as DemoSession;
  if (typeof session.repository !== 'string' || typeof session.entrypoint !== 'string') {
    throw new ConfigError(`${sessionPath} must name the \`repository\` (relative to it) and its \`entrypoint\` besides the \`steps\`.`);
  }
  const agent = createAgent('debug_agent', { llm: createReplayModel(session.steps, { name: 'scripted-demo' }), maxSteps: session.steps.length });
  const terminal = await createTerminal({ type: options.terminal ?? 'local', ...(options.python ? { python: options.python } : {}) });
  const env = new RepoEnv({
    path: resolve(dirname(sessionPath), session.repository),
    entrypoint: session.entrypoint,
    terminal,
    tools: (session.tools ?? agent.tools).map((name) => toToolSpec(name)),
    runTimeout: 30,
  });
  const total = session.steps.length;
  try {
    write(`debug-gym demo: the debug_agent driven by a SCRIPTED model: it replays ${total} recorded tool calls. No LLM, no API key.\n`);
    write(`${session.description}\nrepository: ${session.repository} (copied into a ${terminal.kind} sandbox; your files are not modified)\n`);
    const info = await env.reset();
    write(`\n== reset ==\n${info.allObservations.slice(1).map((o) => quote(`[${o.source}] ${o.observation}`)).join('\n\n')}\n`);
    write(`score ${info.score}/${info.maxScore ?? '?'}\n`);
    const { result } = await agent.run(env, {
      task: 'demo',
      info,
      onStep: (step) => {
        write(`\n== step ${step.step}/${total} [SCRIPTED, no LLM]: ${describeCall(step)} ==\n${quote(step.observation.text)}\n`);
      },
    });
    write(`\nresult: score ${result.score}/${result.maxScore ?? '?'}, resolved: ${result.success ? 'yes' : 'no'}, steps: ${result.steps}, rewrites: ${result.rewrites}\n`);
    if (!result.success) throw new ExitError(1, 'The scripted session did not resolve the task.');
    return result;
  } finally {
    await env.close();
  }
}
