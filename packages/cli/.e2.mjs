import { RepoEnv } from '@debug-gym/core';
import { LocalTerminal } from '@debug-gym/terminal';
import evalTool from '@debug-gym/tool-eval';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
const terminal = new LocalTerminal({ python: '/usr/bin/python3' });
const env = new RepoEnv({ path: '/work/shared/data/mini_nightmare/config', terminal, tools: [viewTool, rewriteTool, evalTool, pdbTool], entrypoint: 'python -m pytest --tb=no -s test.py', readonlyPatterns: ['*test*.py'], runTimeout: 60, terminateOnResolved: false });
await env.reset();
const log = [];
let t0 = 0;
for (const m of ['writeFile', 'run', 'readFile', 'remove', 'stat']) {
  const orig = terminal[m].bind(terminal);
  terminal[m] = async (...a) => { const s = performance.now() - t0; try { return await orig(...a); } finally { log.push(`${m}:${s.toFixed(1)}-${(performance.now() - t0).toFixed(1)}`); } };
}
for (let i = 0; i < 5; i++) await env.step({ name: 'eval', arguments: {} });
for (let i = 0; i < 6; i++) { log.length = 0; t0 = performance.now(); await env.step({ name: 'eval', arguments: {} }); console.log((performance.now() - t0).toFixed(1), log.join(' ')); }
await env.close();
