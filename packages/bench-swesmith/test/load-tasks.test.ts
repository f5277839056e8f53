import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import swesmith, { parseInstance, reversePatch, streamRows, streamTasks } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'swesmith-load-'));
const BUG = 'diff --git a/src/m.py b/src/m.py\n--- a/src/m.py\n+++ b/src/m.py\n@@ -1,3 +1,3 @@\n def f(x):\n-    return x + 1\n+    return x - 1\n \n';
const REPOS = ['Mimino666__langdetect.a1598f1a', 'pallets__click.fde47b4b', 'martinblech__xmltodict.0952f382'];

function row(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base = REPOS[index % REPOS.length] as string;
  return {
    instance_id: `${base}.func_pm_op_change__${String(index).padStart(8, '0')}`,
    repo: `swesmith/${base}`,
    patch: BUG,
    FAIL_TO_PASS: ['tests/test_m.py::test_f'],
    PASS_TO_PASS: ['tests/test_m.py::test_g', 'tests/test_other.py::test_h'],
    created_at: '2025-01-01T00:00:00',
    image_name: `swesmith.x86_64.${base.toLowerCase()}`,
    base_commit: 'abc',
    problem_statement: `problem ${index}`,
    ...overrides,
  };
}

describe('reading SWE-smith instances', () => {
  it('reads JSONL, a JSON list and Parquet (list columns) alike, row by row', async () => {
    const rows = [row(0), row(1), row(2)];
    const jsonl = join(dir, 'a.jsonl');
    writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const json = join(dir, 'a.json');
    writeFileSync(json, JSON.stringify(rows, null, 2));
    const parquet = join(dir, 'a.parquet');
    const columns = Object.keys(rows[0] as object).map((name) => ({ name, data: rows.map((r) => r[name]) }));
    writeFileSync(parquet, Buffer.from(parquetWriteBuffer({ columnData: columns as never, rowGroupSize: 2 })));
    for (const file of [jsonl, json, parquet]) {
      const read = [];
      for await (const item of streamRows(file, 'swesmith', 'fix')) read.push('row' in item ? parseInstance(item.row).instance_id : item.error);
      expect(read, file).toEqual(rows.map((r) => r.instance_id));
    }
  });

  it('F2P/P2P may be JSON strings; a broken row is left out with a warning naming its line', async () => {
    const file = join(dir, 'broken.jsonl');
    writeFileSync(file, [JSON.stringify(row(0, { FAIL_TO_PASS: JSON.stringify(['tests/test_m.py::test_f']) })), '{not json', JSON.stringify(row(1, { image_name: undefined })), JSON.stringify(row(2))].join('\n'));
    const dataset = await swesmith.loadTasks({ dataPath: file, cacheDir: dir });
    expect(dataset.tasks.map((task) => task.id)).toEqual([row(0).instance_id, row(2).instance_id]);
    expect(dataset.complete).toBe(false);
    expect(dataset.warnings.join('\n')).toMatch(/line 2 is not valid JSON/);
    expect(dataset.warnings.join('\n')).toMatch(/line 3 \(pallets__click[^)]*\): field 'image_name' is missing/);
    await expect(swesmith.loadTasks({ dataPath: file, cacheDir: dir, tasks: [row(1).instance_id as string] })).rejects.toThrow(/is broken/);
  });

  it('a task: the harness command with F2P files, image from the image name, bug applied at reset, reverse patch as the fix', async () => {
    const file = join(dir, 'one.jsonl');
    writeFileSync(file, JSON.stringify(row(1)) + '\n');
    const [task] = (await swesmith.loadTasks({ dataPath: file, cacheDir: dir })).tasks;
    expect(task?.entrypoint).toBe('pytest --disable-warnings --color=no --tb=short --verbose tests/test_m.py');
    expect(task?.debugEntrypoint).toBe('pytest -sq --disable-warnings --color=no --tb=no --verbose tests/test_m.py');
    expect(task?.docker).toMatchObject({ image: 'jyangballin/swesmith.x86_64.pallets_1776_click.fde47b4b:latest', workdir: '/testbed', required: true });
    expect(task?.setupCommands?.[1]).toContain("apply --whitespace=nowarn - <<'DEBUG_GYM_BUG_PATCH'");
    expect(task?.goldPatch).toBe(reversePatch(BUG));
    expect(task?.goldPatch).toContain('-    return x - 1\n+    return x + 1');
    expect(task?.metadata).toMatchObject({ repo: 'pallets/click', log_parser: 'pytest' });
    expect(await swesmith.solution?.(task!)).toEqual([{ name: 'rewrite', arguments: { path: 'src/m.py', start: 1, end: 3, new_code: 'def f(x):\n    return x + 1\n' } }]);
    // Grading: only the command's files count (filter_irrelevant_tests drops tests/test_other.py).
    const passing = 'tests/test_m.py::test_f PASSED\ntests/test_m.py::test_g PASSED\n';
    expect(task?.scorer?.({ output: passing, exitCode: 0, timedOut: false, durationMs: 1, timeoutMs: 1 })).toMatchObject({ success: true, score: 1, maxScore: 1 });
    expect(task?.scorer?.({ output: 'tests/test_m.py::test_f PASSED\ntests/test_m.py::test_g FAILED\n', exitCode: 1, timedOut: false, durationMs: 1, timeoutMs: 1 })).toMatchObject({ success: false, score: 0 });
    expect(task?.scorer?.({ output: 'tests/test_m.py::test_g PASSED\n', exitCode: 1, timedOut: false, durationMs: 1, timeoutMs: 1 })).toMatchObject({ success: false, score: 0 });
  });

  it('selects as filter_problems does (ids, all minus excluded, splits), plus repo: and re:', async () => {
    const file = join(dir, 'select.jsonl');
    const excluded = 'adrienverge__yamllint.8513d9b9.pr_525';
    writeFileSync(file, [...Array.from({ length: 9 }, (_, i) => row(i)), row(0, { instance_id: excluded, image_name: 'swesmith.x86_64.adrienverge__yamllint.8513d9b9' })].map((r) => JSON.stringify(r)).join('\n'));
    const ids = async (tasks?: string[]) => (await swesmith.loadTasks({ dataPath: file, cacheDir: dir, ...(tasks ? { tasks } : {}) })).tasks.map((task) => task.id);
    expect(await ids()).toHaveLength(9); // "all" leaves out the original's excluded ids
    expect(await ids([excluded])).toEqual([excluded]); // ...which can still be asked for by id
    expect(await ids([row(4).instance_id as string, row(1).instance_id as string])).toEqual([row(4).instance_id, row(1).instance_id]);
    expect(await ids(['repo:pallets/click'])).toEqual([1, 4, 7].map((i) => row(i).instance_id));
    expect(await ids(['re:0000000[0-2]$'])).toEqual([0, 1, 2].map((i) => row(i).instance_id));
    expect(await ids(['excluded'])).toEqual([excluded]);
    await expect(ids(['nope'])).rejects.toMatchObject({ code: 'DG_BENCH_UNKNOWN_TASK' });
    await expect(ids(['repo:no/such'])).rejects.toThrow(/repo:no\/such/);
  });

  it('streams a 50,000-instance file: the first task in under 2 s; an id near the end is found without building the others', async () => {
    const file = join(dir, 'big.jsonl');
    const template = JSON.stringify(row(0, { problem_statement: 'p' }));
    const first = row(0).instance_id as string;
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i += 1) lines.push(template.replace(first, row(i).instance_id as string).replace(row(0).image_name as string, row(i).image_name as string));
    writeFileSync(file, lines.join('\n') + '\n');
    const started = performance.now();
    const stream = streamTasks({ dataPath: file, cacheDir: dir });
    const next = await stream.next();
    const firstMs = performance.now() - started;
    await stream.return(undefined);
    expect(next.value?.id).toBe(first);
    expect(firstMs).toBeLessThan(2000);
    const target = row(49_990).instance_id as string;
    const dataset = await swesmith.loadTasks({ dataPath: file, cacheDir: dir, tasks: [target, first] });
    expect(dataset.tasks.map((task) => task.id)).toEqual([target, first]);
  }, 60_000);
});

describe('the Hugging Face default (the Hub mocked by a local server: no network here)', () => {
  let server: Server;
  let endpoint = '';
  const requests: string[] = [];
  beforeAll(async () => {
    const shard = (from: number) => {
      const rows = [row(from), row(from + 1)];
      const columns = Object.keys(rows[0] as object).map((name) => ({ name, data: rows.map((r) => r[name]) }));
      return Buffer.from(parquetWriteBuffer({ columnData: columns as never }));
    };
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      if (request.url === '/api/datasets/SWE-bench/SWE-smith/tree/699b53400d3855206a0fbf3ff4beaf1a52f4f232/data') {
        response.end(JSON.stringify([{ type: 'file', path: 'data/train-00001-of-00002.parquet' }, { type: 'file', path: 'data/train-00000-of-00002.parquet' }, { type: 'file', path: 'data/test-00000-of-00001.parquet' }]));
      } else if (request.url?.startsWith('/datasets/SWE-bench/SWE-smith/resolve/699b53400d3855206a0fbf3ff4beaf1a52f4f232/data/train-0000')) {
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

  it('lists the pinned revision, downloads the split shards in order once, then reads the cache', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'swesmith-hub-'));
    process.env.HF_ENDPOINT = endpoint;
    try {
      const first = await swesmith.loadTasks({ cacheDir });
      expect(first.tasks.map((task) => task.id)).toEqual([0, 1, 2, 3].map((i) => row(i).instance_id));
      expect(requests.filter((url) => url.includes('/resolve/'))).toHaveLength(2);
      const again = await swesmith.loadTasks({ cacheDir, download: false });
      expect(again.tasks).toHaveLength(4);
      expect(requests.filter((url) => url.includes('/resolve/'))).toHaveLength(2);
      // Offline with nothing cached: a typed error with the exact remedy.
      await expect(swesmith.loadTasks({ cacheDir: mkdtempSync(join(tmpdir(), 'swesmith-hub-')), download: false })).rejects.toMatchObject({ code: 'DG_BENCH_DATA', message: expect.stringMatching(/--data-path/) });
      process.env.HF_ENDPOINT = 'http://127.0.0.1:9';
      await expect(swesmith.loadTasks({ cacheDir: mkdtempSync(join(tmpdir(), 'swesmith-hub-')) })).rejects.toMatchObject({ code: 'DG_BENCH_DATA', message: expect.stringMatching(/cannot list SWE-bench\/SWE-smith[\s\S]*\nFix: download/) });
    } finally {
      delete process.env.HF_ENDPOINT;
    }
  });
});

describe('reversePatch', () => {
  it('is what git apply --reverse applies, on a real git repository', () => {
    const repo = mkdtempSync(join(tmpdir(), 'swesmith-rev-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(join(repo, 'a.py'), 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    writeFileSync(join(repo, 'b.py'), 'x = 1');
    git('add', '-A');
    git('commit', '-qm', 'base');
    writeFileSync(join(repo, 'a.py'), 'one\nTWO\nthree\nfour\nsix\nseven\neight\n');
    writeFileSync(join(repo, 'b.py'), 'x = 2\n');
    writeFileSync(join(repo, 'c.py'), 'new\n');
    git('add', '-A');
    const bug = git('diff', '--cached');
    git('commit', '-qm', 'bug');
    execFileSync('git', ['apply', '-'], { cwd: repo, input: reversePatch(bug) });
    expect(readFileSync(join(repo, 'a.py'), 'utf8')).toBe('one\ntwo\nthree\nfour\nfive\nsix\nseven\n');
    expect(readFileSync(join(repo, 'b.py'), 'utf8')).toBe('x = 1');
    expect(git('status', '--porcelain').trimEnd().split('\n').sort()).toEqual([' D c.py', ' M a.py', ' M b.py']);
    expect(reversePatch(reversePatch(bug))).toBe(bug);
  });
});
