import { availableBackends, createTestEnv } from '@debug-gym/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import grepTool from '../src/index.js';

const backends = await availableBackends();

const REPO: Record<string, string | Uint8Array> = {
  'main.py': 'import os\n\ndef main():\n    return helper()\n',
  'src/app.py': 'def helper():\n    return 42\n\n\ndef unused_helper():\n    pass\n',
  'src/util.txt': 'helper notes\n',
  'src/pkg/deep.py': 'def deep_helper():\n    return 1\n',
  'tests/test_app.py': 'from src.app import helper\n\ndef test_helper():\n    assert helper() == 42\n',
  'long.txt': `start ${'x'.repeat(400)}\n`,
  'many.txt': Array.from({ length: 150 }, (_, i) => `needle ${i + 1}`).join('\n') + '\n',
  'five.txt': 'five\nfive\nfive\nfive\nfive\n',
  'binary.dat': new Uint8Array([0x68, 0x65, 0x6c, 0x70, 0x65, 0x72, 0x00, 0x01, 0x02]),
  'latin1.txt': new Uint8Array([0x68, 0x65, 0x6c, 0x70, 0x65, 0x72, 0x20, 0xe9, 0x0a]),
  'secret.txt': 'helper SECRET_TOKEN\n',
  'private/notes.py': 'SECRET_TOKEN = 1\n',
  '.debugignore': 'secret.txt\nprivate/\n',
  '.git/config': 'SECRET_TOKEN helper\n',
  '__pycache__/main.cpython.txt': 'helper\n',
  'node_modules/lib/index.js': 'helper\n',
  'crlf.txt': 'windows line\r\nsecond\r\n',
  'words.txt': 'foo\nfood\n  foo bar\n12 apples\n',
  'slow.txt': `${'a'.repeat(40)}b\n`,
};

describe.each(backends)('grep on $name', (backend) => {
  const env = createTestEnv(backend, { files: REPO, tools: [grepTool, [{ ...grepTool, name: 'grep_fast' }, { timeout: 1 }]], evalOnReset: false });
  beforeAll(async () => {
    await env.reset();
  });
  afterAll(async () => {
    await env.close();
  });
  const grep = async (args: Record<string, unknown>, name = 'grep') => (await env.step({ name, arguments: args })).stepObservation.observation;

  it('searches the whole repository in the original format, files sorted by path', async () => {
    expect(await grep({ pattern: 'def \\w*helper' })).toBe(
      [
        'Found 4 matches:',
        '',
        '=== ./src/app.py ===',
        '   1: def helper():',
        '   5: def unused_helper():',
        '',
        '=== ./src/pkg/deep.py ===',
        '   1: def deep_helper():',
        '',
        '=== ./tests/test_app.py ===',
        '   3: def test_helper():',
      ].join('\n'),
    );
  });

  it('searches one file, named as given', async () => {
    expect(await grep({ pattern: 'helper', path: 'src/app.py' })).toBe('Found 2 matches:\n\n=== src/app.py ===\n   1: def helper():\n   5: def unused_helper():');
  });

  it('searches a directory recursively, naming files under the path as given', async () => {
    expect(await grep({ pattern: 'helper', path: 'src/' })).toBe(
      'Found 4 matches:\n\n=== src/app.py ===\n   1: def helper():\n   5: def unused_helper():\n\n=== src/pkg/deep.py ===\n   1: def deep_helper():\n\n=== src/util.txt ===\n   1: helper notes',
    );
  });

  it.each([
    ['src/*.py', ['src/app.py']],
    ['src/**/*.py', ['src/app.py', 'src/pkg/deep.py']],
    ['*.py', ['./main.py', './src/app.py', './src/pkg/deep.py', './tests/test_app.py']],
    ['./src/*.{py,txt}', ['./src/app.py', './src/util.txt']],
    ['src/p*', ['src/pkg/deep.py']],
  ])('expands the glob %s (the original passed it to grep unexpanded)', async (path, files) => {
    const output = await grep({ pattern: 'helper', path });
    expect([...output.matchAll(/^=== (.*) ===$/gm)].map((match) => match[1])).toEqual(files);
  });

  it('reports no matches for the repository and for a path', async () => {
    expect(await grep({ pattern: 'nothing_like_this' })).toBe("No matches found for pattern 'nothing_like_this' in repository.");
    expect(await grep({ pattern: 'nothing_like_this', path: 'src' })).toBe("No matches found for pattern 'nothing_like_this' in src.");
    expect(await grep({ pattern: 'helper', path: 'nomatch/*.py' })).toBe("No matches found for pattern 'helper' in nomatch/*.py.");
  });

  it('never searches or reveals .debugignore\'d files', async () => {
    expect(await grep({ pattern: 'SECRET_TOKEN' })).toBe("No matches found for pattern 'SECRET_TOKEN' in repository.");
    expect(await grep({ pattern: 'SECRET', path: '*.txt' })).toBe("No matches found for pattern 'SECRET' in *.txt.");
    expect(await grep({ pattern: 'SECRET', path: 'private/*.py' })).toBe("No matches found for pattern 'SECRET' in private/*.py.");
    // Hidden paths get exactly the original's answer for a missing path (grep's own message).
    expect(await grep({ pattern: 'SECRET', path: 'absent.txt' })).toBe('Grep error: absent.txt: No such file or directory');
    expect(await grep({ pattern: 'SECRET', path: 'secret.txt' })).toBe('Grep error: secret.txt: No such file or directory');
    expect(await grep({ pattern: 'SECRET', path: 'private' })).toBe('Grep error: private: No such file or directory');
    expect(await grep({ pattern: 'secret', path: '.debugignore' })).toBe('Grep error: .debugignore: No such file or directory');
  });

  it('takes the original\'s case_sensitive, line_numbers and regex keywords, though its schema (ours too) does not list them', async () => {
    expect(await grep({ pattern: 'FOO', path: 'words.txt' })).toBe("No matches found for pattern 'FOO' in words.txt.");
    expect(await grep({ pattern: 'FOO', path: 'words.txt', case_sensitive: false })).toBe('Found 3 matches:\n\n=== words.txt ===\n   1: foo\n   2: food\n   3:   foo bar');
    expect(await grep({ pattern: 'helper', path: 'src/app.py', line_numbers: false })).toBe('Found 2 matches:\n\n=== src/app.py ===\ndef helper():\ndef unused_helper():');
    expect(await grep({ pattern: 'foo(', path: 'words.txt', regex: false })).toBe("No matches found for pattern 'foo(' in words.txt.");
    expect(await grep({ pattern: 'def helper()', path: 'src/app.py', regex: false, line_numbers: null })).toBe('Found 1 matches:\n\n=== src/app.py ===\n   1: def helper():');
    const shown = env.toolSchemas.find((tool) => tool.function.name === 'grep')?.function.parameters;
    expect(Object.keys(shown?.properties ?? {})).toEqual(['pattern', 'path', 'max_results']);
    expect(shown?.properties.max_results?.type).toEqual(['number', 'null']);
    expect(await grep({ pattern: 'x', case_sensitive: 'no' })).toMatch(/^Invalid arguments for tool `grep`: argument `case_sensitive` must be a boolean/);
  });

  it('skips binary and non-UTF-8 files and the .git, __pycache__ and node_modules directories', async () => {
    const output = await grep({ pattern: 'helper' });
    expect(output).not.toMatch(/binary\.dat|latin1\.txt|\.git|__pycache__|node_modules/);
    expect(output).toContain('=== ./src/util.txt ===');
  });

  it('says the limit was reached only when more matches exist', async () => {
    expect(await grep({ pattern: 'five', max_results: 2 })).toBe('Showing first 2 matches (search limit reached):\n\n=== ./five.txt ===\n   1: five\n   2: five');
    expect(await grep({ pattern: 'five', max_results: 5 })).toMatch(/^Found 5 matches:/);
    expect(await grep({ pattern: 'five', max_results: '3' })).toMatch(/^Showing first 3 matches/);
  });

  it('treats an explicit null max_results as the default of 100', async () => {
    const output = await grep({ pattern: '^needle', max_results: null });
    expect(output.split('\n')[0]).toBe('Showing first 100 matches (search limit reached):');
    expect(output).toContain(' 100: needle 100');
    expect(output).not.toContain('needle 101');
  });

  it('refuses max_results below 1 through the schema', async () => {
    expect(await grep({ pattern: 'five', max_results: 0 })).toMatch(/^Invalid arguments for tool `grep`: argument `max_results` must be >= 1/);
  });

  it('cuts lines longer than 300 characters with "..."', async () => {
    const output = await grep({ pattern: '^start', path: 'long.txt' });
    expect(output).toBe(`Found 1 matches:\n\n=== long.txt ===\n   1: start ${'x'.repeat(294)}...`);
  });

  it('matches without the carriage return of CRLF files', async () => {
    expect(await grep({ pattern: 'line$', path: 'crlf.txt' })).toBe('Found 1 matches:\n\n=== crlf.txt ===\n   1: windows line');
  });

  it('understands POSIX classes and GNU word boundaries besides JavaScript syntax', async () => {
    expect(await grep({ pattern: '^[[:digit:]]+ [[:alpha:]]+$', path: 'words.txt' })).toBe('Found 1 matches:\n\n=== words.txt ===\n   4: 12 apples');
    expect(await grep({ pattern: '\\<foo\\>', path: 'words.txt' })).toBe('Found 2 matches:\n\n=== words.txt ===\n   1: foo\n   3:   foo bar');
    expect(await grep({ pattern: '\\bfoo\\b|\\d+ apples', path: 'words.txt' })).toMatch(/^Found 3 matches:/);
  });

  it('rejects an empty pattern and an invalid regular expression', async () => {
    expect(await grep({ pattern: '' })).toBe('Pattern cannot be empty.');
    expect(await grep({ pattern: 'foo(' })).toMatch(/^Grep error: invalid pattern: missing closing \): `foo\(` \(patterns use RE2 syntax/);
    expect(await grep({ pattern: '(def) \\1' })).toMatch(/^Grep error: backreferences such as `\\1` are not supported/);
    expect(await grep({ pattern: 'def(?= )' })).toMatch(/^Grep error: lookahead and lookbehind/);
  });

  it('refuses paths outside the working copy', async () => {
    expect(await grep({ pattern: 'root', path: '../../etc/passwd' })).toMatch(/^Grep error: `\.\.\/\.\.\/etc\/passwd` is not within the workspace directory/);
  });

  it('answers a pattern that backtracks catastrophically in JavaScript at once (RE2 is linear), and keeps working', async () => {
    expect(await grep({ pattern: '(a+)+$', path: 'slow.txt' }, 'grep_fast')).toBe("No matches found for pattern '(a+)+$' in slow.txt.");
    expect(await grep({ pattern: '(a+)+b$', path: 'slow.txt' }, 'grep_fast')).toBe(`Found 1 matches:\n\n=== slow.txt ===\n   1: ${'a'.repeat(40)}b`);
    expect(await grep({ pattern: 'def main' }, 'grep_fast')).toBe('Found 1 matches:\n\n=== ./main.py ===\n   3: def main():');
  });

  it('matches globs in linear time: a glob that backtracks in picomatch against a long file name', async () => {
    const name = 'a'.repeat(200);
    await env.terminal.run(`echo helper > ${name}`);
    try {
      expect(await grep({ pattern: 'helper', path: `${'*a'.repeat(12)}b` }, 'grep_fast')).toBe(`No matches found for pattern 'helper' in ${'*a'.repeat(12)}b.`);
      expect(await grep({ pattern: 'helper', path: `${'*a'.repeat(12)}` }, 'grep_fast')).toBe(`Found 1 matches:\n\n=== ./${name} ===\n   1: helper`);
    } finally {
      await env.terminal.run(`rm -f ${name}`);
    }
    expect(await grep({ pattern: 'x', path: `${'*'.repeat(300)}.py` })).toMatch(/^Grep error: \*+\.py: the path pattern is longer than 256 characters$/);
  });
});

describe.each(backends)('grep budgets on $name', (backend) => {
  const files = {
    'a.py': 'needle a\n',
    'b.py': 'needle b\n',
    'big.py': `needle big\n${'x'.repeat(2000)}\n`,
    'one/two/three/deep.py': 'needle deep\n',
    'one/shallow.py': 'needle shallow\n',
    ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`hay/f${String(i).padStart(2, '0')}.txt`, 'hay\n'])),
  };
  const env = createTestEnv(backend, {
    files,
    tools: [
      [grepTool, { maxFileBytes: 1024, maxDepth: 2 }],
      [{ ...grepTool, name: 'grep_few' }, { maxFiles: 2 }],
      [{ ...grepTool, name: 'grep_bytes' }, { maxTotalBytes: 1, maxFileBytes: 4096 }],
    ],
    evalOnReset: false,
  });
  beforeAll(() => env.reset());
  afterAll(() => env.close());
  const grep = async (args: Record<string, unknown>, name = 'grep') => (await env.step({ name, arguments: args })).stepObservation.observation;

  it('skips files over the size cap and folders over the depth limit, and names them', async () => {
    expect(await grep({ pattern: 'needle' })).toBe(
      [
        'Found 3 matches:',
        '',
        '=== ./a.py ===',
        '   1: needle a',
        '',
        '=== ./b.py ===',
        '   1: needle b',
        '',
        '=== ./one/shallow.py ===',
        '   1: needle shallow',
        '',
        '(Skipped 1 file(s) larger than 0.0 MiB: ./big.py.)',
        '',
        '(Folders deeper than 2 levels were not searched: ./one/two. Pass one of them as `path` to search below it.)',
      ].join('\n'),
    );
    expect(await grep({ pattern: 'needle', path: 'one/two' })).toContain('=== one/two/three/deep.py ===');
  });

  it('stops at the file count and at the byte budget, and says so', async () => {
    const few = await grep({ pattern: 'needle' }, 'grep_few');
    expect(few).toContain('Found 2 matches:');
    expect(few).toContain('(The search covered only the first 2 files; narrow `path`.)');
    const bytes = await grep({ pattern: 'hay', path: 'hay' }, 'grep_bytes');
    expect(bytes).toMatch(/^Found \d+ matches:/);
    expect(bytes).not.toContain('f19.txt');
    expect(bytes).toMatch(/\(The search stopped after reading 0\.0 MiB \(the limit is 0\.0 MiB\); results may be incomplete\. Narrow `path`\.\)$/);
  });

  it('stops a chain of folders at the depth limit', async () => {
    const made = await env.terminal.run('(for i in $(seq 10); do mkdir d && cd d || exit 1; done; echo needle > x.py) && echo made');
    expect(made.output).toContain('made');
    const deep = await grep({ pattern: 'needle', path: 'd' });
    expect(deep).toMatch(/No matches found for pattern 'needle' in d\./);
    expect(deep).toContain(`(Folders deeper than 2 levels were not searched: d/d/d.`);
    await env.terminal.run('rm -rf d');
  });
});
