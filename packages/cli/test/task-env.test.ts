import { describe, expect, test } from 'vitest';
import { customTask, envOptions, resolveRunConfig, terminalConfig, toolSpecs, BUNDLED_TOOLS } from '../src/index.js';
import { task } from './helpers/fixtures.js';

const swebenchTask = task('django__django-1', '/empty', { docker: { image: 'swebench/x:latest', workdir: '/testbed', python: 'python', env: { PATH: '/opt/conda/bin' }, required: true } });

describe('building a task\'s env and terminal from the config', () => {
  test.each(['local', 'bubblewrap'] as const)('a task that only runs in its Docker image is refused on the %s terminal', (type) => {
    expect(() => terminalConfig({}, type, swebenchTask)).toThrow('Task django__django-1 runs only in its Docker image (swebench/x:latest); use --terminal docker');
  });

  test('on Docker, the task\'s image settings win over the config\'s', () => {
    expect(terminalConfig({ image: 'mine', python: 'python3', env: { A: '1' }, memory: '2g', network: true }, 'docker', swebenchTask)).toEqual({
      type: 'docker',
      python: 'python',
      env: { A: '1', PATH: '/opt/conda/bin' },
      image: 'swebench/x:latest',
      memory: '2g',
      network: true,
      workdir: '/testbed',
    });
  });

  test('on Kubernetes, the config\'s cluster keys become KubernetesTerminal options, and a task\'s image runs there too', () => {
    const config = {
      namespace: 'rl',
      context: 'prod',
      kubeconfig: '/k',
      node_selector: { pool: 'sandboxes' },
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      image_pull_secrets: ['regcred'],
      priority_class_name: 'low',
      runtime_class_name: 'gvisor',
      start_timeout_seconds: 90,
      memory: '4g',
      network: false,
    };
    expect(terminalConfig(config, 'kubernetes', swebenchTask)).toEqual({
      type: 'kubernetes',
      python: 'python',
      env: { PATH: '/opt/conda/bin' },
      image: 'swebench/x:latest',
      workdir: '/testbed',
      namespace: 'rl',
      context: 'prod',
      kubeconfig: '/k',
      nodeSelector: { pool: 'sandboxes' },
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
      imagePullSecrets: ['regcred'],
      priorityClassName: 'low',
      runtimeClassName: 'gvisor',
      startTimeoutMs: 90_000,
      memory: '4g',
      network: false,
    });
  });

  test('snake_case terminal keys become the backends\' options', () => {
    expect(terminalConfig({ python: 'py', shell: '/bin/sh', max_output_bytes: 10, default_timeout_seconds: 2 }, 'local')).toEqual({ type: 'local', python: 'py', shell: '/bin/sh', maxOutputBytes: 10, defaultTimeoutMs: 2000 });
    expect(terminalConfig({ fork_zygote: false }, 'local')).toEqual({ type: 'local', forkZygote: false });
    expect(terminalConfig({ bwrap_path: '/b', max_processes: 5, max_memory_bytes: 6, read_only_paths: ['/x'] }, 'bubblewrap')).toEqual({ type: 'bubblewrap', bwrapPath: '/b', maxProcesses: 5, maxMemoryBytes: 6, readOnlyPaths: ['/x'] });
    expect(terminalConfig({ setup_commands: ['x'], cpus: 1, pids_limit: 9, workdir: '/w', labels: { a: 'b' }, init: false }, 'docker')).toEqual({ type: 'docker', setupCommands: ['x'], cpus: 1, pidsLimit: 9, workdir: '/w', labels: { a: 'b' }, init: false });
    expect(terminalConfig({ read_only_root: false, tmpfs: { '/root': '256m' } }, 'docker')).toEqual({ type: 'docker', readOnlyRoot: false, tmpfs: { '/root': '256m' } });
    expect(terminalConfig({ read_only_root: false, tmpfs: { '/home/app': 1024 } }, 'kubernetes')).toMatchObject({ type: 'kubernetes', readOnlyRootFilesystem: false, tmpfs: { '/home/app': 1024 } });
  });

  test('the config\'s env keys add to the task\'s own (patterns and setup commands are appended)', () => {
    const config = resolveRunConfig(
      { base: { llm_name: 'x', benchmark: 'b', env: { entrypoint: 'pytest -x', run_timeout: 5, ignore_patterns: ['b/'], readonly_patterns: ['c'], setup_commands: ['pip list'], terminate_on_resolved: false, eval_on_reset: false, fork_server: false, dir_tree_depth: 2, max_output_chars: 9, debug_entrypoint: 'pdb', instructions: 'Do it.' } } },
      { agent: 'debug_agent' },
    );
    const options = envOptions(config, task('t', '/repo', { ignorePatterns: ['a/'], setupCommands: ['git init'] }), [], '/cfg');
    expect(options).toMatchObject({
      path: '/repo',
      entrypoint: 'pytest -x',
      instructions: 'Do it.',
      runTimeout: 5,
      ignorePatterns: ['a/', 'b/'],
      readonlyPatterns: ['c'],
      setupCommands: ['git init', 'pip list'],
      terminateOnResolved: false,
      evalOnReset: false,
      forkServer: false,
      dirTreeDepth: 2,
      maxOutputChars: 9,
      debugEntrypoint: 'pdb',
      pluginsFrom: '/cfg',
    });
  });

  test('a custom repository is one task named after its folder (or task_name); without a path there is nothing to run', () => {
    expect(customTask({ path: '/x/my-repo' })).toMatchObject({ id: 'my-repo', benchmark: 'custom', entrypoint: 'python -m pytest -sq .' });
    expect(customTask({ path: '/x/r', task_name: 'named', entrypoint: 'pytest t.py' })).toMatchObject({ id: 'named', entrypoint: 'pytest t.py' });
    expect(() => customTask({})).toThrow('Nothing to run');
  });

  test('bundled tool names become plugin objects, with options; other names and paths stay strings', () => {
    const config = resolveRunConfig({ base: { llm_name: 'x', tools: ['pdb', { eval: { runOnRewrite: true } }, './my-tool.js', { edit: null }] } }, { agent: 'debug_agent' });
    expect(toolSpecs(config, [])).toEqual([BUNDLED_TOOLS.pdb, [BUNDLED_TOOLS.eval, { runOnRewrite: true }], './my-tool.js', BUNDLED_TOOLS.edit]);
    // Listed as `edit`, the rewrite tool is shown to the model as `edit` (the newer original's name).
    expect(BUNDLED_TOOLS.edit).toMatchObject({ name: 'edit', aliases: ['rewrite'], parameters: BUNDLED_TOOLS.rewrite?.parameters });
  });
});
