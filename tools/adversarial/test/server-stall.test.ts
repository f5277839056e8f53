import { spawn, type ChildProcess } from 'node:child_process';
import { availableBackends, testdir, type BackendName } from '@debug-gym/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';
import { serveBin, terminalParams } from '../src/serve-client.js';

/**
 * Issue 26 §2: one agent must not stall the server. One session of a real `debug-gym serve --http`
 * runs an attack again and again, each aimed at a regular expression or parser on the server's event
 * loop; meanwhile another session's `view` must answer with a median under 50 ms, and the attacking
 * episode must get a clear observation. The attacker's sandbox is the row's backend; the victim's is a
 * local one that only reads a file, so its latency measures the server's event loop, not a sandbox. (This row measures time: it is the attack matrix, run on its
 * own; the linear-time property itself is asserted as a ratio in `pnpm perf:text` and in unit tests.)
 */
const SANDBOXES: BackendName[] = ['bubblewrap', 'docker'];
const backends = (await availableBackends()).filter((backend) => SANDBOXES.includes(backend.name));
const VICTIM_SAMPLES = 25;
const MEDIAN_LIMIT_MS = 50;

const repo = testdir({
  'app.py': 'def add(a, b):\n    return a - b\n',
  'test_app.py': 'from app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
});

let server: ChildProcess;
let url: string;

async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer).slice(0, 500)}`);
  return answer;
}

const opened: string[] = [];

async function open(backend: BackendName, tools: string[]): Promise<string> {
  const reset = await post('/reset', { path: repo, terminal: terminalParams(backend), tools, eval_on_reset: false });
  opened.push(reset.session_id as string);
  return reset.session_id as string;
}

/** Close what the last attack opened (the server's session budget is small on a small machine). */
async function closeAll(): Promise<void> {
  for (const session of opened.splice(0)) await post('/close', { session_id: session }).catch(() => undefined);
}

/**
 * The victim: a session whose own sandbox answers in a few milliseconds (the local backend: it runs no
 * untrusted code, it only reads app.py), so that what its latency shows is the server's event loop.
 */
function openVictim(): Promise<string> {
  return open('local', ['view']);
}

async function step(session: string, name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await post('/step', { session_id: session, action: { name, arguments: args }, reply: 'lean' });
  return ((reply.observation as { step_observation: { observation: string } }).step_observation.observation) ?? '';
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The victim's `view` latencies, sampled while `attackStep` runs again and again in the attacking
 * session (each sample is taken while an attack step is in flight or just finished).
 */
async function underAttack(victim: string, attackStep: () => Promise<void>): Promise<{ samples: number[]; attacks: number }> {
  let attacks = 0;
  let done = false;
  const attacking = (async () => {
    while (!done) {
      await attackStep();
      attacks += 1;
    }
  })();
  // Let the first attack step reach the server before sampling.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const samples: number[] = [];
  try {
    while (samples.length < VICTIM_SAMPLES) {
      const started = performance.now();
      expect(await step(victim, 'view', { path: 'app.py' })).toContain('return a - b');
      samples.push(performance.now() - started);
    }
  } finally {
    done = true;
    await attacking;
  }
  return { samples, attacks };
}

function report(name: string, samples: number[], attacks: number): void {
  console.log(`${name}: victim view median ${median(samples).toFixed(1)} ms, max ${Math.max(...samples).toFixed(1)} ms over ${samples.length} samples; ${attacks} attack step(s)`);
}

beforeAll(async () => {
  server = spawn(process.execPath, [serveBin, 'serve', '--http', '--port', '0', '--log-level', 'silent', '--idle-ttl', '0'], { stdio: 'pipe' });
  let stderr = '';
  url = await new Promise<string>((resolve, reject) => {
    server.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    server.on('exit', (code) => reject(new Error(`serve --http exited ${code}: ${stderr}`)));
  });
});
afterEach(closeAll);
afterAll(() => {
  server?.kill('SIGTERM');
});

describe.each(backends)('one agent stalls the server ($name)', ({ name: backend }) => {
  attack(
    'grep: a pattern that backtracks catastrophically in JavaScript, on a+! lines of a 3.8 MB file, and a *a*a…b path glob against a long name',
    backend,
    async () => {
      const victim = await openVictim();
      const attacker = await open(backend, ['grep', 'pdb']);
      // The agent writes the texts the patterns meet: a 3.8 MB file of `a…a!` lines (under grep's 4 MiB
      // file cap) and a file with a 200-character name.
      await step(attacker, 'pdb', { command: "!open('slow.txt', 'w').write(('a' * 40 + '!\\n') * 90000) or open('a' * 200, 'w').write('x')" });
      const globPath = `${'*a'.repeat(12)}b`;
      const { samples, attacks } = await underAttack(victim, async () => {
        expect(await step(attacker, 'grep', { pattern: '(a+)+$', path: 'slow.txt' })).toBe("No matches found for pattern '(a+)+$' in slow.txt.");
        expect(await step(attacker, 'grep', { pattern: '(x+x+)+y' })).toMatch(/^No matches found for pattern/);
        expect(await step(attacker, 'grep', { pattern: 'x', path: globPath })).toBe(`No matches found for pattern 'x' in ${globPath}.`);
        // What RE2 cannot express is refused at once, with what to write instead.
        expect(await step(attacker, 'grep', { pattern: '(a)\\1' })).toMatch(/^Grep error: backreferences such as `\\1` are not supported/);
      });
      report(`grep [${backend}]`, samples, attacks);
      expect(attacks).toBeGreaterThan(0);
      expect(median(samples)).toBeLessThan(MEDIAN_LIMIT_MS);
    },
    300_000,
  );

  attack(
    'output normalization: pdb prints runs of 8-bit C1 introducers, unterminated OSC and CSI, carriage returns',
    backend,
    async () => {
      const victim = await openVictim();
      const attacker = await open(backend, ['pdb']);
      const prints = [
        'print(chr(0x90) * 1000000)',
        "print('\\x1b]0;' * 300000)",
        "print('\\x9b1;' * 300000 + 'x')",
        "print('\\r' * 1000000 + 'x')",
        "print('\\x1b[' * 500000)",
      ];
      let next = 0;
      const { samples, attacks } = await underAttack(victim, async () => {
        const observation = await step(attacker, 'pdb', { command: prints[next++ % prints.length] });
        // A clear observation: pdb answered, and no control character reached the model.
        expect(observation.length).toBeGreaterThan(0);
        expect(observation).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      });
      report(`normalization [${backend}]`, samples, attacks);
      expect(attacks).toBeGreaterThan(0);
      expect(median(samples)).toBeLessThan(MEDIAN_LIMIT_MS);
    },
    300_000,
  );

  attack(
    "pdb's frame lines: the program prints '> ' + '(1)' * 100000 + then a '-> ' line, which the hidden-source scrub reads on every pdb answer",
    backend,
    async () => {
      const victim = await openVictim();
      const attacker = await open(backend, ['pdb']);
      const { samples, attacks } = await underAttack(victim, async () => {
        const observation = await step(attacker, 'pdb', { command: '!print("> " + "(1)" * 100000 + "\\n-> x")' });
        expect(observation).toContain('(1)(1)');
      });
      report(`pdb frame lines [${backend}]`, samples, attacks);
      expect(attacks).toBeGreaterThan(0);
      expect(median(samples)).toBeLessThan(MEDIAN_LIMIT_MS);
    },
    300_000,
  );

  attack(
    "pytest summary parsing: the code under test prints '1 ' + '1' * 100000 + '!' (and other look-alike summary lines) at exit, on every eval",
    backend,
    async () => {
      const victim = await openVictim();
      const attacker = await open(backend, ['eval', 'rewrite']);
      const atExit =
        "import atexit\natexit.register(lambda: print('1 ' + '1' * 100000 + '!\\n' + '= ' * 100000 + 'x\\n' + '_' * 100000 + ' ERROR collecting ' + ' ' * 100000 + '\\n' + 'collected ' * 50000))\n";
      expect(await step(attacker, 'rewrite', { path: 'app.py', start: 100, new_code: atExit })).toMatch(/has been updated successfully/);
      const { samples, attacks } = await underAttack(victim, async () => {
        const observation = await step(attacker, 'eval', {});
        // The eval still scores the real run: the tests fail on a - b.
        expect(observation).toMatch(/1 failed, 1 passed/);
      });
      report(`pytest summary [${backend}]`, samples, attacks);
      expect(attacks).toBeGreaterThan(0);
      expect(median(samples)).toBeLessThan(MEDIAN_LIMIT_MS);
    },
    300_000,
  );
});
