import { RepoEnv } from '@debug-gym/core';
import { LocalTerminal } from '@debug-gym/terminal';
import evalTool from '@debug-gym/tool-eval';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
const terminal = new LocalTerminal({ python: '/usr/bin/python3' });
const env = new RepoEnv({ path: '/work/shared/data/mini_nightmare/config', terminal, tools: [viewTool, rewriteTool, evalTool, pdbTool], entrypoint: 'python -m pytest --tb=no -s test.py', readonlyPatterns: ['*test*.py'], runTimeout: 60, terminateOnResolved: false });
const a = [], b = [];
for (let k = 0; k < 12; k++) {
  await env.reset();
  await new Promise((r) => setTimeout(r, 300));
  let t0 = performance.now();
  const info = await env.step({ name: 'rewrite', arguments: { path: 'config_code.py', start: 1, new_code: (await terminal.readFile(terminal.workdir + '/config_code.py')).toString().split('\n')[0] + '  # x' } });
  a.push(performance.now() - t0);
  if (k === 0) console.log(info.stepObservation.observation);
  await new Promise((r) => setTimeout(r, 300));
  t0 = performance.now();
  await env.step({ name: 'rewrite', arguments: { path: 'config_code.py', start: 1, new_code: (await terminal.readFile(terminal.workdir + '/config_code.py')).toString().split('\n')[0] + '  # y' } });
  b.push(performance.now() - t0);
}
const med = (x) => x.sort((p, q) => p - q)[x.length >> 1].toFixed(1);
console.log('after reset', med(a), 'second', med(b));
await env.close();
