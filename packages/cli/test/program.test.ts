import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import { describe, expect, test, vi } from 'vitest';
import { createProgram, type CommandHandlers } from '../src/index.js';

function parse(argv: string[]): { handlers: { [K in keyof CommandHandlers]: ReturnType<typeof vi.fn> }; run: Promise<unknown>; errors: string[] } {
  const handlers = {
    run: vi.fn(async () => undefined),
    bench: vi.fn(async () => undefined),
    replay: vi.fn(async () => undefined),
    serve: vi.fn(async () => undefined),
    mcp: vi.fn(async () => undefined),
    export: vi.fn(async () => undefined),
    initLlmConfig: vi.fn(async () => undefined),
    demo: vi.fn(async () => undefined),
    gc: vi.fn(async () => undefined),
    check: vi.fn(async () => undefined),
    view: vi.fn(async () => undefined),
    synth: vi.fn(async () => undefined),
  };
  const errors: string[] = [];
  const program = createProgram(handlers).configureOutput({ writeErr: (text) => errors.push(text), writeOut: (text) => errors.push(text) });
  for (const command of program.commands) command.configureOutput({ writeErr: (text) => errors.push(text), writeOut: (text) => errors.push(text) });
  return { handlers, run: program.parseAsync(['node', 'debug-gym', ...argv]), errors };
}

describe('command-line parsing', () => {
  test('synth takes the repository, --out, --seed, --max, --needs-debugger, --generators, --terminal, -n and --check', async () => {
    const { handlers, run } = parse(['synth', 'repo', '--out', 'ds', '--seed', '7', '--max', '30', '--needs-debugger', '--generators', 'ast/off-by-one,ast/swap-arguments', '--terminal', 'bubblewrap', '-n', '1', '--check', '0']);
    await run;
    expect(handlers.synth).toHaveBeenCalledWith('repo', {
      out: 'ds',
      seed: 7,
      max: 30,
      needsDebugger: true,
      generators: 'ast/off-by-one,ast/swap-arguments',
      terminal: 'bubblewrap',
      workers: 1,
      check: 0,
    });
  });

  test('synth without --out is refused before anything runs', async () => {
    const { handlers, run } = parse(['synth', 'repo']);
    await expect(run).rejects.toThrow();
    expect(handlers.synth).not.toHaveBeenCalled();
  });

  test('check takes the target, --repeat, --terminal, --tasks, -n, the report paths, --min-margin and --timeout-retries', async () => {
    const { handlers, run } = parse(['check', 'aider', '--repeat', '3', '--terminal', 'docker', '--tasks', 'two_fer,bowling', '-n', '2', '--json', 'h.json', '--markdown', 'h.md', '--min-margin', '2.5', '--timeout-retries', '0']);
    await run;
    expect(handlers.check).toHaveBeenCalledWith('aider', {
      repeat: 3,
      terminal: 'docker',
      tasks: 'two_fer,bowling',
      workers: 2,
      json: 'h.json',
      markdown: 'h.md',
      out: 'exps',
      minMargin: 2.5,
      timeoutRetries: 0,
    });
  });

  test("--version prints the CLI package's own version, not core's", async () => {
    const { run, errors } = parse(['--version']);
    await expect(run).rejects.toThrow();
    const own = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(errors.join('').trim()).toBe(own);
  });

  test('check refuses a margin that is not a positive number', async () => {
    const { run, errors } = parse(['check', 'aider', '--min-margin', '0']);
    await expect(run).rejects.toThrow();
    expect(errors.join('')).toContain('must be a number > 0');
  });

  test('run takes the config, the agent, repeated or several -p items, a -v count, --debug, -n and --tasks', async () => {
    const { handlers, run } = parse(['run', 'cfg.yaml', '--agent', 'debug_agent', '-p', 'base.max_steps=30', 'debug_agent.llm_name=human', '-p', 'base.workers=2', '-vv', '--debug', '-n', '3', '--tasks', 'a,b', '--force']);
    await run;
    expect(handlers.run).toHaveBeenCalledWith('cfg.yaml', {
      agent: 'debug_agent',
      params: ['base.max_steps=30', 'debug_agent.llm_name=human', 'base.workers=2'],
      verbose: 2,
      debug: true,
      workers: 3,
      tasks: 'a,b',
      force: true,
    });
  });

  test('bench has defaults for the agent and the output folder', async () => {
    const { handlers, run } = parse(['bench', 'mini-nightmare', '--agent', 'solution', '--solutions', 'fixes', '--terminal', 'bubblewrap', '--data-path', 'data', '-n', '2']);
    await run;
    expect(handlers.bench).toHaveBeenCalledWith('mini-nightmare', { agent: 'solution', out: 'exps', solutions: 'fixes', terminal: 'bubblewrap', dataPath: 'data', workers: 2, verbose: 0, freshGrading: true });
    const ungraded = parse(['bench', 'aider', '--no-fresh-grading']);
    await ungraded.run;
    expect(ungraded.handlers.bench).toHaveBeenCalledWith('aider', expect.objectContaining({ freshGrading: false }));
  });

  test('mcp takes the env flags and the HTTP flags, and checks the port', async () => {
    let parsed = parse(['mcp', '--path', 'repo', '--entrypoint', 'python -m pytest -q', '--terminal', 'bubblewrap', '--tools', 'pdb,view']);
    await parsed.run;
    expect(parsed.handlers.mcp).toHaveBeenCalledWith({ path: 'repo', entrypoint: 'python -m pytest -q', terminal: 'bubblewrap', tools: 'pdb,view', host: '127.0.0.1' });
    parsed = parse(['mcp', '--config', 'c.yaml', '--agent', 'debug_agent', '--task', 'config', '--http', '--host', '0.0.0.0', '--port', '8765', '--token', 't', '--max-sessions', '2']);
    await parsed.run;
    expect(parsed.handlers.mcp).toHaveBeenCalledWith({ config: 'c.yaml', agent: 'debug_agent', task: 'config', http: true, host: '0.0.0.0', port: 8765, token: 't', maxSessions: 2 });
    parsed = parse(['mcp', '--http', '--port', '70000']);
    await expect(parsed.run).rejects.toBeInstanceOf(CommanderError);
    expect(parsed.errors.join('')).toMatch(/must be a port number/);
  });

  test('export takes several inputs, a mandatory format among three, --out and --all', async () => {
    let parsed = parse(['export', 'exps/run1', 'other/trajectory.json', '--format', 'sft', '--all', '--out', 'data.jsonl']);
    await parsed.run;
    expect(parsed.handlers.export).toHaveBeenCalledWith(['exps/run1', 'other/trajectory.json'], { format: 'sft', all: true, out: 'data.jsonl' });
    parsed = parse(['export', 'exps/run1']);
    await expect(parsed.run).rejects.toBeInstanceOf(CommanderError);
    expect(parsed.errors.join('')).toMatch(/--format <format>' not specified/);
    parsed = parse(['export', 'exps/run1', '--format', 'jsonl']);
    await expect(parsed.run).rejects.toBeInstanceOf(CommanderError);
    expect(parsed.errors.join('')).toMatch(/Allowed choices are original, atif, sft/);
  });

  test('replay, serve, init-llm-config, demo and gc reach their handlers', async () => {
    let parsed = parse(['replay', 't.json', '--check', '--terminal', 'local']);
    await parsed.run;
    expect(parsed.handlers.replay).toHaveBeenCalledWith('t.json', { check: true, terminal: 'local', out: 'exps/replays', verbose: 0 });
    parsed = parse(['serve']);
    await parsed.run;
    expect(parsed.handlers.serve).toHaveBeenCalledWith({});
    parsed = parse(['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--token', 't', '--max-sessions', '8', '--idle-ttl', '90', '--step-timeout', '0', '--max-body-bytes', '4096', '--allow-local', '--terminal', 'docker', '--log-level', 'warn']);
    await parsed.run;
    expect(parsed.handlers.serve).toHaveBeenCalledWith({ http: true, host: '0.0.0.0', port: 0, token: 't', maxSessions: 8, idleTtl: 90, stepTimeout: 0, maxBodyBytes: 4096, allowLocal: true, terminal: 'docker', logLevel: 'warn' });
    for (const bad of [['--port', '70000'], ['--idle-ttl', '-1'], ['--max-sessions', '0']]) {
      parsed = parse(['serve', '--http', ...bad]);
      await expect(parsed.run).rejects.toBeInstanceOf(CommanderError);
    }
    parsed = parse(['init-llm-config', 'dir', '-f']);
    await parsed.run;
    expect(parsed.handlers.initLlmConfig).toHaveBeenCalledWith('dir', { force: true });
    parsed = parse(['init-llm-config']);
    await parsed.run;
    expect(parsed.handlers.initLlmConfig).toHaveBeenCalledWith(undefined, {});
    parsed = parse(['demo', '--python', '/usr/bin/python3']);
    await parsed.run;
    expect(parsed.handlers.demo).toHaveBeenCalledWith({ terminal: 'local', python: '/usr/bin/python3' });
    parsed = parse(['gc']);
    await parsed.run;
    expect(parsed.handlers.gc).toHaveBeenCalledWith({});
    parsed = parse(['gc', '--dry-run']);
    await parsed.run;
    expect(parsed.handlers.gc).toHaveBeenCalledWith({ dryRun: true });
    parsed = parse(['gc', '--kubernetes', '--namespace', 'rl', '--context', 'prod']);
    await parsed.run;
    expect(parsed.handlers.gc).toHaveBeenCalledWith({ kubernetes: true, namespace: 'rl', context: 'prod' });
    parsed = parse(['bench', 'aider', '--terminal', 'kubernetes']);
    await parsed.run;
    expect(parsed.handlers.bench).toHaveBeenCalledWith('aider', expect.objectContaining({ terminal: 'kubernetes' }));
  });

  test('view takes the run folder, --out, --compare, --serve and --port', async () => {
    let parsed = parse(['view', 'exps/run']);
    await parsed.run;
    expect(parsed.handlers.view).toHaveBeenCalledWith('exps/run', {});
    parsed = parse(['view', 'exps/a', '--out', 'a.html', '--compare', 'exps/b', '--serve', '--port', '8123']);
    await parsed.run;
    expect(parsed.handlers.view).toHaveBeenCalledWith('exps/a', { out: 'a.html', compare: 'exps/b', serve: true, port: 8123 });
  });

  test.each([
    [['view', 'exps/a', '--serve', '--port', '70000'], /must be a port number/],
    [['view', 'exps/a', '--port', '-1'], /must be a port number/],
    [['view'], /missing required argument 'run'/],
    [['run', 'cfg.yaml', '-n', 'zero'], /must be a whole number/],
    [['run', 'cfg.yaml', '-n', '0'], /must be a whole number/],
    [['bench', 'aider', '--terminal', 'podman'], /Allowed choices are auto, local, bubblewrap, docker, kubernetes/],
    [['run'], /missing required argument 'config'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('%j is refused by commander with a message', async (argv, message) => {
    const { run, errors } = parse(argv);
    await expect(run).rejects.toBeInstanceOf(CommanderError);
    expect(errors.join('')).toMatch(message);
  });
});
