/**
 * A working copy moved from one sandbox to another through their helpers (what `fork()` does on
 * the bubblewrap and Docker backends): the source helper packs it into a tar stream, read in pieces;
 * the target helper extracts the pieces as they arrive. Neither side holds the whole tree.
 */
import type { HelperResponse } from './docker-helper-client.js';

type Call = (op: string, params: Record<string, unknown>) => Promise<HelperResponse>;

let nextTransfer = 1;

/** The tar stream of `path` in the source sandbox (`call` adds nothing: params are complete). */
export async function* exportTree(call: Call, path: string): AsyncGenerator<Buffer> {
  const tid = nextTransfer++;
  await call('tar_open', { tid, path });
  let done = false;
  try {
    while (!done) {
      const response = await call('tar_read', { tid });
      done = response.done === true;
      const data = Buffer.from(String(response.data ?? ''), 'base64');
      if (data.length > 0) yield data;
    }
  } finally {
    // A consumer that stopped early: read the rest, or the packing thread waits on a full pipe forever.
    while (!done) done = (await call('tar_read', { tid }).catch(() => ({ done: true }) as unknown as HelperResponse)).done === true;
  }
}

/** Extract `chunks` into `path` of the target sandbox. */
export async function importTree(call: Call, path: string, chunks: AsyncIterable<Buffer>): Promise<void> {
  const tid = nextTransfer++;
  await call('untar_open', { tid, path });
  let failure: unknown;
  try {
    for await (const chunk of chunks) await call('untar_chunk', { tid, data: chunk.toString('base64') });
  } catch (error) {
    failure = error;
  }
  await call('untar_close', { tid }).catch((error: unknown) => {
    failure ??= error;
  });
  if (failure) throw failure;
}
