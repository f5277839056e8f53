import { createInterface, type Interface } from 'node:readline';
import { type ToolSchema } from '@debug-gym/spec';
import { usage } from '@debug-gym/plugin-kit';
import { HumanQuitError } from '../errors/index.js';
import { parseCommandLine } from '../text-format/parse-command-line.js';
import type { ChatMessage, GenerateRequest, GenerateResult, LanguageModel } from './types.js';

export interface HumanModelOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Earlier entries for the arrow-key history (oldest first). */
  history?: readonly string[];
  /** Called with every accepted line (to persist the history). */
  onHistory?: (line: string) => void;
  /** The prompt string. Default `debug-gym> `. */
  prompt?: string;
}

const QUIT = new Set(['quit', 'exit', ':q']);
const HELP = new Set(['help', '?', 'tools']);

/**
 * You are the model: shows each observation and the tools, reads a tool call typed as `pdb b 12`,
 * `view path=app.py start=3` or JSON, validates it against the tool's schema and asks again on any
 * mistake. Arrow keys walk the history; a line ending in `\` continues on the next one; `help` lists
 * the tools; `quit`, Ctrl-D or Ctrl-C end the session (HumanQuitError).
 */
export function createHumanModel(options: HumanModelOptions = {}): LanguageModel {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const write = (text: string): void => {
    output.write(text);
  };
  let rl: Interface | undefined;
  let closed = false;
  let shownTools = '';
  const pending: Array<(line: string | null) => void> = [];
  const queued: string[] = [];

  const open = (): Interface => {
    if (rl) return rl;
    const terminal = Boolean((output as NodeJS.WriteStream).isTTY);
    rl = createInterface({ input, output, terminal, historySize: 1000, removeHistoryDuplicates: true, prompt: options.prompt ?? 'debug-gym> ' });
    const rlHistory = (rl as unknown as { history?: string[] }).history;
    if (rlHistory && options.history) rlHistory.unshift(...[...options.history].reverse());
    rl.on('line', (line) => {
      const waiter = pending.shift();
      if (waiter) waiter(line);
      else queued.push(line);
    });
    rl.on('close', () => {
      closed = true;
      for (const waiter of pending.splice(0)) waiter(null);
    });
    rl.on('SIGINT', () => {
      write('^C\n');
      rl?.close();
    });
    return rl;
  };

  const readLine = (prompt: string, signal?: AbortSignal): Promise<string | null> => {
    const lines = open();
    if (queued.length > 0) return Promise.resolve(queued.shift() as string);
    if (closed) return Promise.resolve(null);
    lines.setPrompt(prompt);
    lines.prompt();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = pending.indexOf(waiter);
        if (index >= 0) pending.splice(index, 1);
        write('\n');
        reject(signal?.reason);
      };
      const waiter = (line: string | null): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(line);
      };
      pending.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };

  const readCommand = async (signal?: AbortSignal): Promise<string | null> => {
    let line = await readLine(options.prompt ?? 'debug-gym> ', signal);
    while (line !== null && line.endsWith('\\')) {
      const more = await readLine('... ', signal);
      line = more === null ? line.slice(0, -1) : `${line.slice(0, -1)}\n${more}`;
    }
    return line;
  };

  return {
    specificationVersion: 'language-model-v1',
    name: 'human',
    modelId: 'human',
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      write(renderObservation(request.messages));
      const toolList = request.tools.map((tool) => tool.function.name).join(', ');
      if (toolList !== shownTools) {
        shownTools = toolList;
        write(`\nTools: ${toolList}   (type \`help\` for their arguments, \`quit\` to stop)\n`);
      }
      for (;;) {
        if (request.signal?.aborted) throw request.signal.reason;
        const line = await readCommand(request.signal);
        if (line === null || QUIT.has(line.trim().toLowerCase())) throw new HumanQuitError();
        const text = line.trim();
        if (!text) continue;
        if (HELP.has(text.toLowerCase())) {
          write(renderHelp(request.tools));
          continue;
        }
        const parsed = parseCommandLine(text, request.tools);
        if (!parsed.ok) {
          write(`${parsed.message}\n`);
          continue;
        }
        options.onHistory?.(text);
        const id = `${parsed.name}-${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
        return { toolCall: { id, name: parsed.name, arguments: parsed.arguments }, content: null, reasoning: null, usage: { promptTokens: 0, completionTokens: 0 } };
      }
    },
    describe: () => ({ provider: 'human' }),
    async close() {
      rl?.close();
    },
  };
}

/** What is new since the human's last answer: the instructions at first, then each observation. */
function renderObservation(messages: readonly ChatMessage[]): string {
  let start = messages.length;
  while (start > 0 && messages[start - 1]?.role !== 'assistant') start -= 1;
  const fresh = messages.slice(start).filter((message) => message.role !== 'system');
  return fresh
    .map((message) => {
      const title = message.role === 'tool' ? `observation (${message.name})` : message.role === 'user' && start === 0 ? 'task' : 'note';
      return `\n── ${title} ${'─'.repeat(Math.max(0, 60 - title.length))}\n${message.content ?? ''}\n`;
    })
    .join('');
}

function renderHelp(tools: readonly ToolSchema[]): string {
  const lines = tools.map((tool) => `  ${usage(tool.function.name, tool.function.parameters).replace(/^Usage: /, '')}\n      ${tool.function.description.split('\n')[0]}`);
  return [
    'Call a tool by typing one of:',
    ...lines,
    'Examples: `pdb b 12`, `view path=app.py start=3`, `rewrite path=app.py start=5 new_code="    return x\\n"`, {"name": "eval", "arguments": {}}',
    'Quote values with spaces; "..." takes \\n escapes. End a line with \\ to continue it.',
    '',
  ].join('\n');
}
