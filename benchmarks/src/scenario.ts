/**
 * The scripted tool calls: the per-tool cycle (each call is one measured row) and the 20-step
 * episode of the throughput runs. Every call carries a check on its observation so that a step
 * that silently did something else (an error text, a pdb restart) is counted, not hidden.
 */
import type { ToolCall } from '@debug-gym/core';
import type { PerfTask } from './task.js';

export interface ScriptedStep {
  /** Row id, e.g. `view`, `pdb-c-next`. */
  id: string;
  label: string;
  call: ToolCall;
  /** What the observation must contain for the step to have done what its row claims. */
  expect: RegExp;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function pdb(id: string, label: string, command: string, expect: RegExp): ScriptedStep {
  return { id, label, call: { name: 'pdb', arguments: { command } }, expect };
}

/** One line rewritten with the same code plus a comment: valid Python, and pdb restarts. */
export function rewriteStep(task: PerfTask, iteration: number): ScriptedStep {
  return {
    id: 'rewrite',
    label: 'rewrite (one line; pdb restarts)',
    call: { name: 'rewrite', arguments: { path: task.codeFile, start: task.defLine, new_code: `${task.defText}  # perf ${iteration}` } },
    expect: /Debugging terminal started/,
  };
}

/**
 * The per-tool cycle, run `repeat` times. It starts with the rewrite, so every cycle's pdb session is
 * fresh: the first `c` runs pytest's imports and collection up to the breakpoint (Python's cost, a
 * row of its own), the second `c` goes to the next hit of the same line.
 */
export function toolCycle(task: PerfTask, iteration: number): ScriptedStep[] {
  const at = `${escape(task.codeFile)}:${task.breakLine}\\b`;
  return [
    { id: 'listdir', label: 'listdir', call: { name: 'listdir', arguments: {} }, expect: new RegExp(escape(task.codeFile)) },
    { id: 'view', label: `view ${task.codeFile}`, call: { name: 'view', arguments: { path: task.codeFile } }, expect: new RegExp(escape(task.defText.trim().slice(0, 20))) },
    { id: 'grep', label: `grep ${task.grepPattern}`, call: { name: 'grep', arguments: { pattern: task.grepPattern } }, expect: new RegExp(escape(task.codeFile)) },
    rewriteStep(task, iteration),
    { id: 'eval', label: 'eval (pytest run)', call: { name: 'eval', arguments: {} }, expect: /\b\d+ (passed|failed)/ },
    pdb('pdb-b', 'pdb b file:line', `b ${task.codeFile}:${task.breakLine}`, /Breakpoint \d+ at/),
    pdb('pdb-c-first', 'pdb c (from program start)', 'c', new RegExp(at)),
    pdb('pdb-p', `pdb p ${task.expression}`, `p ${task.expression}`, /Pdb command output/),
    pdb('pdb-n', 'pdb n', 'n', /Current frame/),
    pdb('pdb-l', 'pdb l', 'l', /Pdb command output:\n\s*\d+ /),
    pdb('pdb-c-next', 'pdb c (to next hit)', 'c', new RegExp(at)),
    pdb('pdb-cl', 'pdb cl file:line', `cl ${task.codeFile}:${task.breakLine}`, /Deleted breakpoint/),
  ];
}

/** The 20 steps of one throughput episode; the first 10 are the "reset + 10 steps" episode. */
export function episodeSteps(task: PerfTask): ScriptedStep[] {
  const cycle = toolCycle(task, 0);
  const byId = (id: string): ScriptedStep => cycle.find((step) => step.id === id) as ScriptedStep;
  return [
    byId('listdir'),
    byId('view'),
    byId('grep'),
    { id: 'view-test', label: 'view test.py', call: { name: 'view', arguments: { path: 'test.py' } }, expect: /test/ },
    byId('pdb-b'),
    byId('pdb-c-first'),
    byId('pdb-p'),
    byId('pdb-n'),
    byId('pdb-l'),
    byId('eval'),
    // second half
    byId('pdb-c-next'),
    byId('pdb-p'),
    { id: 'view-range', label: 'view a range', call: { name: 'view', arguments: { path: task.codeFile, start: task.defLine, end: task.breakLine + 5 } }, expect: /./ },
    rewriteStep(task, 1),
    pdb('pdb-c-restored', 'pdb c (restored breakpoint)', 'c', /./),
    byId('pdb-p'),
    byId('pdb-n'),
    { id: 'listdir-2', label: 'listdir depth 2', call: { name: 'listdir', arguments: { depth: 2 } }, expect: /./ },
    { id: 'grep-self', label: 'grep return', call: { name: 'grep', arguments: { pattern: 'return' } }, expect: /./ },
    byId('eval'),
  ];
}
