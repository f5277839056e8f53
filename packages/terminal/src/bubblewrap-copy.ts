/**
 * Copying a host tree into the bubblewrap jail through its helper: a small archive in one request,
 * a bigger one in pieces that the helper extracts while they arrive (so neither side holds it whole,
 * and no request line grows with the repository).
 */
import type { HelperResponse } from './docker-helper-client.js';
import { archiveBytes, type packDirectory } from './docker-tar.js';

type Pack = ReturnType<typeof packDirectory>;
type Call = (op: string, params: Record<string, unknown>) => Promise<HelperResponse>;

/** Archives up to this size go in one request; bigger ones in pieces of about this size. */
export const COPY_CHUNK_BYTES = 8 * 1024 * 1024;
let nextTransfer = 1;

/** Extract the archive `pack()` makes through `call` (which adds the target path to each request). */
export async function untarInto(call: Call, pack: () => Pack, chunkBytes = COPY_CHUNK_BYTES): Promise<void> {
  const inline = await archiveBytes(pack(), chunkBytes);
  if (inline) {
    await call('untar', { data: inline.toString('base64') });
    return;
  }
  const tid = nextTransfer++;
  await call('untar_open', { tid });
  let failure: unknown;
  try {
    let parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of pack()) {
      parts.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size < chunkBytes) continue;
      await call('untar_chunk', { tid, data: Buffer.concat(parts).toString('base64') });
      parts = [];
      size = 0;
    }
    if (size > 0) await call('untar_chunk', { tid, data: Buffer.concat(parts).toString('base64') });
  } catch (error) {
    failure = error;
  }
  // Closing ends the extraction (also after a failed read of the host tree) and reports its error.
  await call('untar_close', { tid }).catch((error: unknown) => {
    failure ??= error;
  });
  if (failure) throw failure;
}
