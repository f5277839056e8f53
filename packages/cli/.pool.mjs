import { RepoEnv } from '@debug-gym/core';
import { DockerTerminal, LocalTerminal, SandboxPool } from '@debug-gym/terminal';
import evalTool from '@debug-gym/tool-eval';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
const kind = process.argv[2] ?? 'docker';
const deferMs = Number(process.argv[3] ?? 0);
const make0 = () => kind === 'docker' ? new DockerTerminal({ image: 'debug-gym/python-offline:bookworm', python: 'python3' }) : new LocalTerminal({ python: '/usr/bin/python3' });
const make = () => { const t = make0(); if (process.argv[4]) { const c = t.close.bind(t); t.close = () => new Promise((r) => setTimeout(r, 1000)).then(c); } return t; };
const pool = await SandboxPool.create({ size: 1, create: make, backgroundDelayMs: Number(process.env.BG ?? 250) });
const terminal = pool.terminal();
if (deferMs) { const r = pool.refill.bind(pool); let first = true; pool.refill = (f) => { if (first) { first = false; return r(f); } setTimeout(() => r(), deferMs); }; }
let t0 = 0; const log = [];
for (const m of ['start', 'copyIn', 'run', 'readFile', 'writeFile', 'remove', 'stat', 'openSession', 'readDir']) {
  const orig = terminal[m].bind(terminal);
  terminal[m] = async (...a) => { const s = performance.now() - t0; try { return await orig(...a); } finally { log.push(`${m}:${s.toFixed(0)}-${(performance.now() - t0).toFixed(0)}`); } };
}
const env = new RepoEnv({ path: '/work/shared/data/mini_nightmare/config', terminal, tools: [viewTool, rewriteTool, evalTool, pdbTool], entrypoint: 'python -m pytest --tb=no -s test.py', readonlyPatterns: ['*test*.py'], runTimeout: 60, terminateOnResolved: false });
const times = [];
for (let i = 0; i < 8; i++) {
  while (pool.ready < 1) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 1500));
  log.length = 0; t0 = performance.now();
  await env.reset();
  const t = performance.now() - t0; times.push(t);
  console.log(t.toFixed(0), log.join(' '));
}
times.sort((a, b) => a - b); console.log('median', times[4].toFixed(0));
await env.close(); await pool.close();
