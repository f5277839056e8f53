import { setTimeout as sleep } from 'node:timers/promises';
import { availableBackends, createTestEnv } from '@debug-gym/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import bashTool, { LOCAL_REFUSED_TEXT, NO_OUTPUT_TEXT } from '../src/index.js';

const backends = await availableBackends();

const REPO = {
  'app.py': 'print("hello")\n',
  'sub/inner.txt': 'inner\n',
  'secret.txt': 'the hidden answer\n',
  '.debugignore': 'secret.txt\n',
};

describe.each(backends)('bash on $name', (backend) => {
  const envs: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });
  async function started(options: Partial<Parameters<typeof createTestEnv>[1]> = {}) {
    const env = createTestEnv(backend, { files: REPO, tools: [bashTool], evalOnReset: false, ...options });
    envs.push(env);
    await env.reset();
    return {
      env,
      bash: async (args: Record<string, unknown>) => (await env.step({ name: 'bash', arguments: args })).stepObservation,
    };
  }

  it('returns the output of a successful command, in the working copy', async () => {
    const { env, bash } = await started();
    const observation = await bash({ command: 'pwd && cat app.py' });
    expect(observation).toEqual({ source: 'bash', observation: `${env.terminal.workdir}\nprint("hello")` });
  });

  it('runs `python script.py`, as agents type it, with the configured interpreter', async () => {
    const { env, bash } = await started();
    expect((await bash({ command: 'python app.py' })).observation).toBe('hello');
    const configured = (await env.terminal.run(`${env.terminal.python} -c 'import sys; print(sys.executable)'`)).output.trim();
    expect((await bash({ command: "python -c 'import sys; print(sys.executable)'" })).observation).toBe(configured);
  });

  it('says so when a successful command prints nothing', async () => {
    const { bash } = await started();
    expect((await bash({ command: 'true' })).observation).toBe(NO_OUTPUT_TEXT);
  });

  it('reports a failing command with its output and exit code', async () => {
    const { bash } = await started();
    expect((await bash({ command: 'echo oops >&2; exit 3' })).observation).toBe('Command failed with output:\noops\n[exit code 3]');
    expect((await bash({ command: 'exit 1' })).observation).toBe('Command failed with output:\n(no output)\n[exit code 1]');
  });

  it('runs every call in a fresh shell: cd and export do not persist, files do', async () => {
    const { env, bash } = await started();
    await bash({ command: 'cd sub && export FOO=bar && MY_VAR=1 && echo made > made.txt' });
    expect((await bash({ command: 'pwd; echo "FOO=$FOO MY_VAR=$MY_VAR"' })).observation).toBe(`${env.terminal.workdir}\nFOO= MY_VAR=`);
    expect((await bash({ command: 'cat sub/made.txt' })).observation).toBe('made');
  });

  it('kills a command at its timeout with its partial output, and stays usable', async () => {
    const { bash } = await started();
    const observation = (await bash({ command: 'echo started; sleep 30', timeout: 1 })).observation;
    expect(observation).toMatch(/^Command timed out after 1 seconds\nPartial output:\nstarted\n\nThe command and every process it started were killed/);
    expect((await bash({ command: 'echo still here' })).observation).toBe('still here');
  });

  it('kills the whole process group at the timeout, background children included', async () => {
    const { bash } = await started();
    await bash({ command: '(sleep 2; echo leaked > leaked.txt) & sleep 30', timeout: 1 });
    await sleep(2500);
    expect((await bash({ command: 'ls leaked.txt' })).observation).toMatch(/^Command failed with output:\n.*No such file/);
  });

  it('clamps a timeout below one second up to one second, accepts a quoted number, and wants whole seconds (the original\'s integer)', async () => {
    const { bash } = await started();
    expect((await bash({ command: 'sleep 5', timeout: 0 })).observation).toMatch(/^Command timed out after 1 seconds/);
    expect((await bash({ command: 'echo ok', timeout: '5' })).observation).toBe('ok');
    expect((await bash({ command: 'echo ok', timeout: 0.5 })).observation).toMatch(/^Invalid arguments for tool `bash`: argument `timeout` must be an integer\./);
  });

  it('treats an explicit null timeout as the default', async () => {
    const { bash } = await started();
    expect((await bash({ command: 'echo ok', timeout: null })).observation).toBe('ok');
  });

  it('refuses an empty command with a usage hint', async () => {
    const { bash } = await started();
    expect((await bash({ command: '   ' })).observation).toMatch(/^Command cannot be empty\./);
    expect((await bash({})).observation).toContain('missing required argument `command`');
  });

  it('is a plain shell: files hidden from the other tools are reachable (documented behaviour)', async () => {
    const { bash } = await started();
    expect((await bash({ command: 'cat secret.txt' })).observation).toBe('the hidden answer');
  });

  it('caps megabytes of output with a marker', async () => {
    const { env, bash } = await started();
    const observation = (await bash({ command: 'yes 0123456789 | head -c 5000000' })).observation;
    expect(observation).toContain('truncated');
    expect(observation.length).toBeLessThanOrEqual(env.settings.maxOutputChars);
  });

  it(`${backend.name === 'local' ? 'refuses' : 'still runs'} with allowLocal: false`, async () => {
    const { bash } = await started({ tools: [[bashTool, { allowLocal: false }]] });
    const observation = (await bash({ command: 'echo ran' })).observation;
    expect(observation).toBe(backend.name === 'local' ? LOCAL_REFUSED_TEXT : 'ran');
  });
});

describe('the bash plugin', () => {
  it('tells the model truthfully that shell state does not persist and the file rules do not apply', () => {
    expect(bashTool.description).toContain('state does NOT persist between calls');
    expect(bashTool.description).not.toMatch(/State is persistent/i);
    expect(bashTool.description).toContain('.debugignore');
  });

  it('requires command and makes timeout an optional, nullable integer (the original\'s type)', () => {
    expect(bashTool.parameters.required).toEqual(['command']);
    expect(bashTool.parameters.properties.timeout?.type).toEqual(['integer', 'null']);
  });
});
