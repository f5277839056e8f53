import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkDataError, type LoadProgress } from '@debug-gym/spec';
import { defaultCacheDir, downloadFile, sha256File } from '../src/index.js';

const BODY = 'hello benchmark data\n'.repeat(100);
const SHA = createHash('sha256').update(BODY).digest('hex');
const BIG_CHUNKS = 64;
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/big.bin') {
      // 4 MiB in 64 KiB writes: many network chunks.
      response.writeHead(200, { 'content-length': String(BIG_CHUNKS * 65536) });
      for (let i = 0; i < BIG_CHUNKS; i += 1) response.write(Buffer.alloc(65536, i % 256));
      response.end();
    } else if (request.url === '/data.bin') {
      response.writeHead(200, { 'content-length': String(Buffer.byteLength(BODY)) });
      response.end(BODY);
    } else {
      response.writeHead(404, 'Not Found');
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const scratch = (): string => mkdtempSync(join(tmpdir(), 'debug-gym-download-'));

describe('downloadFile', () => {
  it('downloads over HTTP, reports progress, verifies the checksum and leaves no partial file', async () => {
    const target = join(scratch(), 'sub', 'data.bin');
    const progress: LoadProgress[] = [];
    const sha = await downloadFile(`${base}/data.bin`, target, { benchmark: 'demo', sha256: SHA.toUpperCase(), onProgress: (event) => progress.push(event) });
    expect(sha).toBe(SHA);
    expect(readFileSync(target, 'utf8')).toBe(BODY);
    expect(existsSync(`${target}.partial`)).toBe(false);
    expect(progress.at(-1)).toMatchObject({ phase: 'download', done: Buffer.byteLength(BODY), total: Buffer.byteLength(BODY) });
    expect(await sha256File(target)).toBe(SHA);
  });

  it('streams a big download to disk and reports progress at most every 250 ms, not once per network chunk', async () => {
    const target = join(scratch(), 'big.bin');
    const progress: LoadProgress[] = [];
    const started = Date.now();
    await downloadFile(`${base}/big.bin`, target, { benchmark: 'demo', onProgress: (event) => progress.push(event) });
    const elapsed = Date.now() - started;
    expect(readFileSync(target).length).toBe(BIG_CHUNKS * 65536);
    expect(progress.length).toBeLessThanOrEqual(2 + Math.floor(elapsed / 250));
    expect(progress.at(-1)).toMatchObject({ done: BIG_CHUNKS * 65536, total: BIG_CHUNKS * 65536 });
  });

  it('copies a file:// URL', async () => {
    const source = join(scratch(), 'source.bin');
    writeFileSync(source, BODY);
    const target = join(scratch(), 'copy.bin');
    expect(await downloadFile(pathToFileURL(source).href, target, { benchmark: 'demo' })).toBe(SHA);
  });

  it('deletes a download whose checksum does not match and says the file is corrupt', async () => {
    const target = join(scratch(), 'data.bin');
    const error = await downloadFile(`${base}/data.bin`, target, { benchmark: 'demo', sha256: '0'.repeat(64) }).catch((caught: unknown) => caught);
    expect(BenchmarkDataError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`is corrupt: SHA-256 ${SHA}, expected ${'0'.repeat(64)}`);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.partial`)).toBe(false);
  });

  it('reports an HTTP error with the URL and a fix', async () => {
    const target = join(scratch(), 'missing.bin');
    await expect(downloadFile(`${base}/missing.bin`, target, { benchmark: 'demo' })).rejects.toThrow(/demo: downloading .*missing.bin failed: HTTP 404 Not Found\nFix: /);
  });

  it('reports an unreachable host or missing file as a data error', async () => {
    const target = join(scratch(), 'x.bin');
    await expect(downloadFile(pathToFileURL(join(scratch(), 'nope.bin')).href, target, { benchmark: 'demo' })).rejects.toThrow(BenchmarkDataError);
    await expect(downloadFile('http://127.0.0.1:1/x', target, { benchmark: 'demo' })).rejects.toThrow(/downloading http:\/\/127.0.0.1:1\/x failed/);
  });
});

describe('defaultCacheDir', () => {
  it.each([
    [{ DEBUG_GYM_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' }, '/c'],
    [{ XDG_CACHE_HOME: '/x' }, '/x/debug-gym'],
  ])('prefers DEBUG_GYM_CACHE_DIR, then XDG_CACHE_HOME (%o)', (env, expected) => {
    expect(defaultCacheDir(env)).toBe(expected);
  });

  it('falls back to ~/.cache/debug-gym', () => {
    expect(defaultCacheDir({})).toMatch(/\.cache\/debug-gym$/);
  });
});
