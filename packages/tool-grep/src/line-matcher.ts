import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface LineMatch {
  /** 1-based line number. */
  line: number;
  /** The line without its line break. */
  text: string;
}

/** Thrown when compiling or matching ran out of time (a pattern too costly for the text, or a huge search). */
export class MatchTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`matching took longer than ${timeoutMs} ms`);
    this.name = 'MatchTimeoutError';
  }
}

/** A pattern RE2 cannot compile (its syntax, a backreference, a lookaround, a repetition over 1000). */
export class PatternSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternSyntaxError';
  }
}

/**
 * The worker's program. User patterns run on re2js (RE2 semantics: time linear in the text, no
 * backtracking) and in a worker thread, so that even a large search never holds the server's event
 * loop: the main thread only waits for a message, and ends the worker at the time limit.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
let compiled = null;
function compile(source, flags) {
  const key = flags + '\\u0000' + source;
  if (!compiled || compiled.key !== key) {
    compiled = { key, pattern: RE2JS.compile(source, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) };
  }
  return compiled.pattern;
}
function search(re, texts, limit) {
  const results = [];
  let total = 0;
  for (let t = 0; t < texts.length && total < limit; t++) {
    const text = texts[t];
    const found = [];
    let start = 0;
    let line = 1;
    while (start < text.length && total < limit) {
      let end = text.indexOf('\\n', start);
      if (end === -1) end = text.length;
      let content = text.slice(start, end);
      if (content.charCodeAt(content.length - 1) === 13) content = content.slice(0, -1);
      if (re.test(content)) {
        found.push({ line, text: content });
        total += 1;
      }
      start = end + 1;
      line += 1;
    }
    results.push(found);
  }
  return results;
}
parentPort.on('message', (job) => {
  let re;
  try {
    re = compile(job.source, job.flags);
  } catch (error) {
    parentPort.postMessage({ id: job.id, syntaxError: String(error && error.message) });
    return;
  }
  try {
    parentPort.postMessage({ id: job.id, results: job.texts ? search(re, job.texts, job.limit) : [] });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message) });
  }
});
`;

type Reply = { id: number; results?: LineMatch[][]; syntaxError?: string; error?: string };

/** A matching worker's heap: what a batch of texts (about 8 MiB) and RE2's caches need, with room. */
const WORKER_HEAP_MB = 512;
/** Idle workers kept for the next search; more are ended when they finish. */
const MAX_IDLE_WORKERS = 2;
/** An idle worker is ended after this long without work. */
const IDLE_MS = 60_000;

let re2jsPath: string | undefined;
const idle: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];
let nextId = 1;

function spawn(): Worker {
  re2jsPath ??= createRequire(import.meta.url).resolve('re2js');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { re2js: re2jsPath },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    stdout: true,
    stderr: true,
  });
  worker.unref();
  return worker;
}

function take(): Worker {
  const entry = idle.pop();
  if (!entry) return spawn();
  clearTimeout(entry.timer);
  return entry.worker;
}

function release(worker: Worker): void {
  if (idle.length >= MAX_IDLE_WORKERS) {
    void worker.terminate();
    return;
  }
  const entry = {
    worker,
    timer: setTimeout(() => {
      const at = idle.indexOf(entry);
      if (at >= 0) idle.splice(at, 1);
      void worker.terminate();
    }, IDLE_MS),
  };
  entry.timer.unref();
  idle.push(entry);
}

/** Run one job on a worker; the worker is ended (and the job rejected) at the time limit. */
function runJob(job: { source: string; flags: string; texts?: readonly string[]; limit?: number }, timeoutMs: number): Promise<LineMatch[][]> {
  const budget = Math.max(1, Math.floor(timeoutMs));
  const worker = take();
  const id = nextId++;
  return new Promise<LineMatch[][]>((resolve, reject) => {
    const finish = (): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: Reply): void => {
      if (reply.id !== id) return;
      finish();
      release(worker);
      if (reply.syntaxError !== undefined) reject(new PatternSyntaxError(reply.syntaxError));
      else if (reply.error !== undefined) reject(new Error(reply.error));
      else resolve(reply.results ?? []);
    };
    const onError = (error: Error): void => {
      finish();
      void worker.terminate();
      // Out of heap: the pattern's automaton or the texts did not fit.
      reject((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? new Error('the search ran out of memory; simplify the pattern or narrow `path`') : error);
    };
    const onExit = (): void => {
      finish();
      reject(new Error('the search worker stopped unexpectedly'));
    };
    const timer = setTimeout(() => {
      finish();
      void worker.terminate();
      reject(new MatchTimeoutError(budget));
    }, budget);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({ id, ...job });
  });
}

/**
 * Compile a pattern (RE2 syntax) in the worker, within `timeoutMs`: rejects with PatternSyntaxError
 * when RE2 refuses it, MatchTimeoutError when compiling takes too long.
 */
export async function checkPattern(source: string, flags: string, timeoutMs: number): Promise<void> {
  await runJob({ source, flags }, timeoutMs);
}

/**
 * Matching lines of each text (one array per text, in order), at most `limit` in total: texts
 * after the limit was reached get no entry. Runs off the event loop; gives up after `timeoutMs`.
 */
export async function matchTexts(source: string, flags: string, texts: readonly string[], limit: number, timeoutMs: number): Promise<LineMatch[][]> {
  const found = await runJob({ source, flags, texts, limit }, timeoutMs);
  return found.map((matches) => matches.map((match) => ({ line: match.line, text: match.text })));
}

/** Matching lines of one text, at most `limit`, giving up after `timeoutMs`. */
export async function matchLines(source: string, flags: string, text: string, limit: number, timeoutMs: number): Promise<LineMatch[]> {
  return (await matchTexts(source, flags, [text], limit, timeoutMs))[0] ?? [];
}
