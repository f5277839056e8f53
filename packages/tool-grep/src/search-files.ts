import { FileTooLargeError, type Terminal } from '@debug-gym/spec';
import type { SearchTarget } from './collect-files.js';
import type { FileMatches } from './format-grep.js';
import { MatchTimeoutError, matchTexts, type LineMatch } from './line-matcher.js';

export interface SearchOptions {
  source: string;
  flags: string;
  /** Stop once this many matching lines were found. */
  limit: number;
  /** Epoch milliseconds after which no further file is searched. */
  deadline: number;
  /**
   * The whole search's time budget. A match that runs out of time with most of it left is a pattern
   * too costly for the text; one that runs out late is just the deadline (a big search on a busy machine).
   */
  timeoutMs?: number;
  /** Files larger than this are skipped (and named in the outcome) without being read. */
  maxFileBytes: number;
  /** No further batch is read once this many bytes were read (a batch may end past it by its files' caps). */
  maxTotalBytes: number;
  /** Most files read (and matched) per batch; batches of big files are smaller (about 8 MiB a batch). */
  batchSize?: number;
}

export interface SearchOutcome {
  files: FileMatches[];
  /** Matching lines found (at most `limit`). */
  count: number;
  /** Stopped at `limit`. */
  limitHit: boolean;
  /** Stopped at the deadline before every file was searched. */
  outOfTime: boolean;
  /** Matching one batch of files used more than half the budget (a pattern too costly for the text). */
  matchTimedOut: boolean;
  /** Files over `maxFileBytes`, not searched. */
  tooLarge: string[];
  /** Bytes read. */
  bytesRead: number;
  /** Stopped at `maxTotalBytes` before every file was searched. */
  byteBudgetHit: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: true });
const BATCH_BYTES = 8 * 1024 * 1024;

type Read = { target: SearchTarget; text: string | null; bytes: number; tooLarge: boolean };

/** A file's text, or null when grep -I would skip it (NUL bytes, not UTF-8) or it vanished. */
async function readSearchable(terminal: Terminal, target: SearchTarget, maxBytes: number): Promise<Read> {
  let bytes: Uint8Array;
  try {
    bytes = await terminal.readFile(target.absolute, { maxBytes });
  } catch (error) {
    return { target, text: null, bytes: 0, tooLarge: FileTooLargeError.isInstance(error) };
  }
  if (bytes.includes(0)) return { target, text: null, bytes: bytes.length, tooLarge: false };
  try {
    return { target, text: decoder.decode(bytes), bytes: bytes.length, tooLarge: false };
  } catch {
    return { target, text: null, bytes: bytes.length, tooLarge: false };
  }
}

/** Search `targets` in order, a batch of files at a time, until `limit` matches, the deadline or the byte budget. */
export async function searchFiles(terminal: Terminal, targets: readonly SearchTarget[], options: SearchOptions): Promise<SearchOutcome> {
  const outcome: SearchOutcome = { files: [], count: 0, limitHit: false, outOfTime: false, matchTimedOut: false, tooLarge: [], bytesRead: 0, byteBudgetHit: false };
  const maxBatch = options.batchSize ?? 32;
  // Start small and grow while files are small: memory in flight stays near BATCH_BYTES whatever the files.
  let batchSize = Math.min(4, maxBatch);
  for (let start = 0; start < targets.length; ) {
    if (outcome.bytesRead >= options.maxTotalBytes) {
      outcome.byteBudgetHit = true;
      return outcome;
    }
    const batch = targets.slice(start, start + batchSize);
    start += batch.length;
    const read = await Promise.all(batch.map((target) => readSearchable(terminal, target, options.maxFileBytes)));
    const batchBytes = read.reduce((sum, entry) => sum + entry.bytes, 0);
    const nextSize = Math.floor(BATCH_BYTES / Math.max(1, batchBytes / batch.length));
    batchSize = Math.max(1, Math.min(maxBatch, nextSize));
    const searchable: Array<{ target: SearchTarget; text: string }> = [];
    for (const entry of read) {
      if (entry.tooLarge) outcome.tooLarge.push(entry.target.display);
      outcome.bytesRead += entry.bytes;
      if (entry.text !== null) searchable.push({ target: entry.target, text: entry.text });
    }
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) {
      outcome.outOfTime = true;
      return outcome;
    }
    let results: LineMatch[][];
    try {
      results = await matchTexts(options.source, options.flags, searchable.map((entry) => entry.text), options.limit - outcome.count, remaining);
    } catch (error) {
      if (!(error instanceof MatchTimeoutError)) throw error;
      if (options.timeoutMs !== undefined && remaining < options.timeoutMs / 2) outcome.outOfTime = true;
      else outcome.matchTimedOut = true;
      return outcome;
    }
    results.forEach((matches, index) => {
      if (matches.length === 0) return;
      outcome.files.push({ display: (searchable[index] as { target: SearchTarget }).target.display, matches });
      outcome.count += matches.length;
    });
    if (outcome.count >= options.limit) {
      outcome.limitHit = true;
      return outcome;
    }
  }
  return outcome;
}
