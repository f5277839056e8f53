import { parseCommandLine, parseTextToolCall } from '@debug-gym/agents';
import { LOG_PARSERS } from '@debug-gym/bench-swebench';
import { normalizeOutput, stripAnsi } from '@debug-gym/core';
import { cleanupPytestOutput, parsePytestOutput, pytestScorer, splitShellWords, truncateMiddle } from '@debug-gym/plugin-kit';
import type { ToolSchema } from '@debug-gym/spec';
import { formatBashResult } from '@debug-gym/tool-bash';
import { compileGlob, compileGrepPattern, matchTexts, translateEre } from '@debug-gym/tool-grep';
import { markProgramEnd, parseOutput } from '@debug-gym/tool-pdb';
import { parseLines, unifiedDiff } from '@debug-gym/tool-rewrite';

/**
 * Every text-processing function that runs on text an agent or the code under test controls, as
 * one-argument calls: tool output and observations (normalization, pdb's output, bash's result, the
 * rewrite diff), test logs (pytest's summary, the SWE-bench parsers), tool arguments (grep's pattern
 * and path glob, the matching itself), and model answers (the text tool-call parsers, client side).
 */
export interface TextCase {
  name: string;
  run: (text: string) => unknown;
}

const TOOLS: ToolSchema[] = ['pdb', 'view', 'rewrite'].map((name) => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties: { command: { type: 'string' }, path: { type: 'string' } }, required: [] } },
}));

const evilGlob = compileGlob(`${'*a'.repeat(12)}b`);
const runResult = (output: string) => ({ output, exitCode: 1, timedOut: false, droppedBytes: 0, durationMs: 1 });

export const TEXT_CASES: TextCase[] = [
  { name: 'core normalizeOutput', run: normalizeOutput },
  { name: 'core stripAnsi', run: stripAnsi },
  { name: 'plugin-kit parsePytestOutput', run: parsePytestOutput },
  { name: 'plugin-kit cleanupPytestOutput', run: cleanupPytestOutput },
  { name: 'plugin-kit pytestScorer', run: (text) => pytestScorer({ ...runResult(text), timeoutMs: 1000 }) },
  { name: 'plugin-kit truncateMiddle', run: (text) => truncateMiddle(text, 8000) },
  { name: 'plugin-kit splitShellWords', run: splitShellWords },
  { name: 'tool-pdb parseOutput', run: parseOutput },
  { name: 'tool-pdb markProgramEnd', run: markProgramEnd },
  { name: 'tool-bash formatBashResult', run: (text) => formatBashResult(runResult(text), 1000) },
  { name: 'tool-rewrite unifiedDiff', run: (text) => unifiedDiff(text, `${text}\nz`) },
  { name: 'tool-rewrite parseLines', run: parseLines },
  { name: 'tool-grep translateEre', run: translateEre },
  { name: 'tool-grep compileGrepPattern', run: (text) => compileGrepPattern(text) },
  { name: 'tool-grep glob match', run: (text) => evilGlob.ok && evilGlob.match(text) },
  { name: 'tool-grep match (a+)+$', run: (text) => matchTexts('(a+)+$', '', [text], 100, 60_000) },
  { name: 'tool-grep match \\b\\w+\\s*=', run: (text) => matchTexts('\\b\\w+\\s*=.*\\d', 'i', [text], 100, 60_000) },
  ...Object.entries(LOG_PARSERS).map(([name, parse]) => ({ name: `bench-swebench ${name} log parser`, run: parse })),
  { name: 'agents parseTextToolCall', run: (text) => parseTextToolCall(text, TOOLS) },
  { name: 'agents parseCommandLine', run: (text) => parseCommandLine(`pdb ${text}`, TOOLS) },
];
