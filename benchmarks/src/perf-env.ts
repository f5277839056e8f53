/** The env every measurement uses: a mini-nightmare task, the real tools, a given terminal. */
import { RepoEnv, type Terminal, type ToolSpec } from '@debug-gym/core';
import evalTool from '@debug-gym/tool-eval';
import grepTool from '@debug-gym/tool-grep';
import listdirTool from '@debug-gym/tool-listdir';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
import type { PerfTask } from './task.js';

/** The tools of a debugging agent (bash and submit add nothing to measure here). */
export const PERF_TOOLS: readonly ToolSpec[] = [listdirTool, viewTool, grepTool, rewriteTool, evalTool, pdbTool];

/** `forkServer: false`: every test run and pdb start cold (the `cold` rows, side by side with the default). */
export function createPerfEnv(task: PerfTask, terminal: Terminal, tools: readonly ToolSpec[] = PERF_TOOLS, forkServer = true, forkStandbys = true): RepoEnv {
  return new RepoEnv({
    forkServer,
    forkStandbys,
    path: task.path,
    terminal,
    tools,
    entrypoint: task.entrypoint,
    readonlyPatterns: task.readonlyPatterns,
    runTimeout: 60,
    // A scripted episode must not end early: keep stepping after the tests pass.
    terminateOnResolved: false,
  });
}
