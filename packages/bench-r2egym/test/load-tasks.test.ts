import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import r2egym, { R2EGYM_SPLITS, hiddenTestsScript, streamTasks } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'r2egym-load-'));
const REPOS = ['pandas', 'aiohttp', 'pillow'];
const DIFF = {
  file_diffs: [
    {
      old_file_content: 'def f(x):\n    return x - 1\n',
      new_file_content: 'def f(x):\n    return x + 1\n',
      header: { file: { path: 'src/m.py' }, misc_line: null },
      index_line: { old_commit_hash: '1111111', new_commit_hash: '2222222', mode: '100644' },
      is_binary_file: false,
      binary_line: null,
      minus_file: { path: 'a/src/m.py' },
      plus_file: { path: 'b/src/m.py' },
      hunks: [
        {
          descriptor: { old_range: { start: 1, length: 2 }, new_range: { start: 1, length: 2 }, section: '' },
          line_group: { all_lines: [{ content: 'def f(x):', type: 'context' }, { content: '    return x - 1', type: 'deleted' }, { content: '    return x + 1', type: 'added' }] },
        },
      ],
    },
  ],
  old_commit_hash: 'a'.repeat(40),
  new_commit_hash: 'b'.repeat(40),
  commit_message: 'fix f',
  commit_date: '2024-01-01T00:00:00',
};

function row(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const repo = REPOS[index % REPOS.length] as string;
  const hash = String(index).padStart(40, '0');
  return {
    repo_name: repo,
    docker_image: `namanjain12/${repo}_final:${hash}`,
    commit_hash: hash,
    parsed_commit_content: JSON.stringify(DIFF, null, 4),
    execution_result_content: JSON.stringify({ repo_name: repo, new_commit_hash: hash, test_file_codes: ['from src.m import f\n\ndef test_f():\n    assert f(1) == 2\n'], test_file_names: ['test_1.py'], setup_res_code: 0, setup_res_stdout: '', setup_res_stderr: '' }, null, 4),
    modified_files: ['src/m.py'],
    modified_entity_summaries: [{ file_name: 'src/m.py', type: 'function', name: 'f', ast_type_str: 'FunctionDef', start_lineno: 1, end_lineno: 2 }],
    relevant_files: ['src/m.py'],
    num_non_test_files: 1,
    num_non_test_func_methods: 1,
    num_non_test_lines: 2,
    prompt: 'p',
    problem_statement: `[ISSUE]\nf is off by two (${index})\n[/ISSUE]`,
    expected_output_json: JSON.stringify({ test_f: 'PASSED' }, null, 4),
    ...overrides,
  };
}
const id = (index: number): string => `${REPOS[index % REPOS.length] as string}_final:${String(index).padStart(40, '0')}`;
const run = (output: string) => ({ output, exitCode: 0, timedOut: false, durationMs: 1, timeoutMs: 1000 });

describe('reading R2E-Gym instances', () => {
  it('reads JSONL, a JSON list and Parquet (list columns) alike; ids are the image name without its namespace', async () => {
    const rows = [row(0), row(1), row(2)];
    const jsonl = join(dir, 'a.jsonl');
    writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const json = join(dir, 'a.json');
    writeFileSync(json, JSON.stringify(rows, null, 2));
    const parquet = join(dir, 'a.parquet');
    const columns = Object.keys(rows[0] as object).map((name) => ({ name, data: rows.map((r) => r[name]) }));
    writeFileSync(parquet, Buffer.from(parquetWriteBuffer({ columnData: columns as never, rowGroupSize: 2 })));
    for (const file of [jsonl, json, parquet]) {
      const dataset = await r2egym.loadTasks({ dataPath: file, cacheDir: dir });
      expect(dataset.tasks.map((task) => task.id), file).toEqual([id(0), id(1), id(2)]);
      expect(dataset.complete).toBe(true);
    }
  });

  it('a task: the image, the original entrypoint, the fix from parsed_commit_content, hidden tests only in the evaluation script', async () => {
    const file = join(dir, 'one.jsonl');
    writeFileSync(file, JSON.stringify(row(1)) + '\n');
    const [task] = (await r2egym.loadTasks({ dataPath: file, cacheDir: dir })).tasks;
    expect(task?.instructions).toBe('\nf is off by two (1)\n');
    expect(task?.entrypoint).toBe('python -m pytest -W ignore -rA r2e_tests');
    expect(task?.debugEntrypoint).toBe('python -m pytest -sq -W ignore -rA r2e_tests');
    expect(task?.docker).toMatchObject({ image: `namanjain12/${id(1)}`, workdir: '/testbed', python: 'python', required: true, env: { VIRTUAL_ENV: '/testbed/.venv', PYTHONWARNINGS: 'ignore::UserWarning,ignore::SyntaxWarning' } });
    expect(task?.goldPatch).toBe('diff --git a/src/m.py b/src/m.py\nindex 1111111..2222222 100644\n--- a/src/m.py\n+++ b/src/m.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x - 1\n+    return x + 1\n');
    expect(await r2egym.solution?.(task!)).toEqual([{ name: 'rewrite', arguments: { path: 'src/m.py', start: 1, end: 2, new_code: 'def f(x):\n    return x + 1' } }]);
    expect(task?.setupCommands?.join('\n')).toContain('rm -rf r2e_tests run_tests.sh');
    expect(JSON.stringify(task)).not.toContain('assert f(1) == 2');
    expect(task?.maxScore).toBe(1);
    expect(task?.scorer?.(run('short test summary info\nPASSED r2e_tests/test_1.py::test_f\n'))).toMatchObject({ success: true, score: 1, maxScore: 1 });
    expect(task?.scorer?.(run('short test summary info\nFAILED r2e_tests/test_1.py::test_f - assert 0 == 2\n'))).toMatchObject({ success: false, score: 0 });
    expect(task?.scorer?.({ ...run('partial'), timedOut: true })).toMatchObject({ success: false, details: { reason: 'timeout' } });
    expect((await r2egym.secrets?.(task!))?.map((secret) => [secret.label, secret.marker, secret.promise])).toEqual([
      ['hidden tests (r2e_tests)', 'from src.m import f', 'tools'],
      ['reference fix (the fixing commit)', 'return x + 1', 'tools'],
    ]);
    const namespaced = (await r2egym.loadTasks({ dataPath: file, cacheDir: dir, options: { namespace: 'mirror.local/r2e' } })).tasks[0];
    expect(namespaced?.docker?.image).toBe(`mirror.local/r2e/${id(1)}`);
    expect(namespaced?.id).toBe(id(1));
  });

  it("the hidden tests script writes R2E-Gym's create_tests layout byte for byte (base64), pillow's helper too", async () => {
    const { execFileSync } = await import('node:child_process');
    const repo = mkdtempSync(join(tmpdir(), 'r2egym-script-'));
    execFileSync('mkdir', ['-p', join(repo, 'Tests')]);
    writeFileSync(join(repo, 'Tests', 'helper.py'), 'HELP = 1\n');
    const code = "quote = 'it''s'\n# ünïcödé, no newline at the end";
    execFileSync('bash', ['-s'], { cwd: repo, input: hiddenTestsScript({ test_files: [{ name: 'test_1.py', code }] }) });
    const { readFileSync, readdirSync } = await import('node:fs');
    expect(readdirSync(join(repo, 'r2e_tests')).sort()).toEqual(['__init__.py', 'helper.py', 'test_1.py']);
    expect(readFileSync(join(repo, 'r2e_tests', 'test_1.py'), 'utf8')).toBe(code);
  });

  it('a broken row is left out with a warning naming its line; a requested broken instance is an error', async () => {
    const file = join(dir, 'broken.jsonl');
    writeFileSync(file, [JSON.stringify(row(0)), '{not json', JSON.stringify(row(1, { expected_output_json: 'nope' })), JSON.stringify(row(2, { execution_result_content: '{}' })), JSON.stringify(row(3))].join('\n'));
    const dataset = await r2egym.loadTasks({ dataPath: file, cacheDir: dir });
    expect(dataset.tasks.map((task) => task.id)).toEqual([id(0), id(3)]);
    expect(dataset.complete).toBe(false);
    const warnings = dataset.warnings.join('\n');
    expect(warnings).toMatch(/line 2 is not valid JSON/);
    expect(warnings).toMatch(/line 3 \(aiohttp_final:[0-9]+\): Invalid R2E expected output JSON/);
    expect(warnings).toMatch(/line 4 \(pillow_final:[0-9]+\): execution_result_content must hold/);
    await expect(r2egym.loadTasks({ dataPath: file, cacheDir: dir, tasks: [id(1)] })).rejects.toMatchObject({ code: 'DG_BENCH_DATA', message: expect.stringMatching(/is broken/) });
  });

  it("selects as filter_problems does (ids, all, the original's splits), plus repo: and re:", async () => {
    const file = join(dir, 'select.jsonl');
    const sanity = R2EGYM_SPLITS['sanity-check']?.[0] as string;
    const [repo, hash] = sanity.split(':') as [string, string];
    writeFileSync(file, [...Array.from({ length: 9 }, (_, i) => row(i)), row(0, { repo_name: repo.replace('_final', ''), docker_image: `namanjain12/${sanity}`, commit_hash: hash })].map((r) => JSON.stringify(r)).join('\n'));
    const ids = async (tasks?: string[]) => (await r2egym.loadTasks({ dataPath: file, cacheDir: dir, ...(tasks ? { tasks } : {}) })).tasks.map((task) => task.id);
    expect(await ids()).toHaveLength(10);
    expect(await ids([id(4), id(1)])).toEqual([id(4), id(1)]);
    expect(await ids(['repo:aiohttp'])).toEqual([1, 4, 7].map(id).concat(sanity.startsWith('aiohttp') ? [sanity] : []));
    expect(await ids(['re:^pillow_final:0+[58]$'])).toEqual([5, 8].map(id));
    expect(await ids(['sanity-check'])).toEqual([sanity]);
    await expect(ids(['nope'])).rejects.toMatchObject({ code: 'DG_BENCH_UNKNOWN_TASK' });
  });

  it('streams a 50,000-instance file: the first task in under 2 s; an id near the end is found without building the others', async () => {
    const file = join(dir, 'big.jsonl');
    const template = JSON.stringify(row(0));
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i += 1) lines.push(template.replaceAll(String(0).padStart(40, '0'), String(i).padStart(40, '0')));
    writeFileSync(file, lines.join('\n') + '\n');
    const started = performance.now();
    const stream = streamTasks({ dataPath: file, cacheDir: dir });
    const next = await stream.next();
    const firstMs = performance.now() - started;
    await stream.return(undefined);
    expect(next.value?.id).toBe(id(0));
    expect(firstMs).toBeLessThan(2000);
    const target = `pandas_final:${String(49_990).padStart(40, '0')}`;
    const dataset = await r2egym.loadTasks({ dataPath: file, cacheDir: dir, tasks: [target, id(0)] });
    expect(dataset.tasks.map((task) => task.id)).toEqual([target, id(0)]);
  }, 120_000);
});

describe('the Hugging Face default (the Hub mocked by a local server: no network here)', () => {
  let server: Server;
  let endpoint = '';
  const requests: string[] = [];
  const REVISION = '8d3163011f01f9393bb3dc7700497a79a8686ae5';
  beforeAll(async () => {
    const shard = (from: number) => {
      const rows = [row(from), row(from + 1)];
      const columns = Object.keys(rows[0] as object).map((name) => ({ name, data: rows.map((r) => r[name]) }));
      return Buffer.from(parquetWriteBuffer({ columnData: columns as never }));
    };
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      if (request.url === `/api/datasets/R2E-Gym/R2E-Gym-Lite/tree/${REVISION}/data`) {
        response.end(JSON.stringify([{ type: 'file', path: 'data/train-00001-of-00002.parquet' }, { type: 'file', path: 'data/train-00000-of-00002.parquet' }]));
      } else if (request.url?.startsWith(`/datasets/R2E-Gym/R2E-Gym-Lite/resolve/${REVISION}/data/train-0000`)) {
        response.end(shard(request.url.includes('00000-of') ? 0 : 2));
      } else {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("R2E-Gym/R2E-Gym-Lite at the original's pinned revision: shards downloaded in order once, then read from the cache; offline, the exact remedy", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'r2egym-hub-'));
    process.env.HF_ENDPOINT = endpoint;
    try {
      const first = await r2egym.loadTasks({ cacheDir });
      expect(first.tasks.map((task) => task.id)).toEqual([0, 1, 2, 3].map(id));
      expect(first.source).toBe('R2E-Gym/R2E-Gym-Lite@8d3163011f01');
      expect(requests.filter((url) => url.includes('/resolve/'))).toHaveLength(2);
      expect((await r2egym.loadTasks({ cacheDir, download: false })).tasks).toHaveLength(4);
      expect(requests.filter((url) => url.includes('/resolve/'))).toHaveLength(2);
      await expect(r2egym.loadTasks({ cacheDir: mkdtempSync(join(tmpdir(), 'r2egym-hub-')), download: false })).rejects.toMatchObject({ code: 'DG_BENCH_DATA', message: expect.stringMatching(/--data-path/) });
      process.env.HF_ENDPOINT = 'http://127.0.0.1:9';
      await expect(r2egym.loadTasks({ cacheDir: mkdtempSync(join(tmpdir(), 'r2egym-hub-')) })).rejects.toMatchObject({ code: 'DG_BENCH_DATA', message: expect.stringMatching(/cannot list R2E-Gym\/R2E-Gym-Lite[\s\S]*\nFix: download/) });
    } finally {
      delete process.env.HF_ENDPOINT;
    }
  });
});
