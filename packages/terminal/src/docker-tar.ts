/**
 * Tar a host directory for the container (the repository is copied in, never bind-mounted): sent
 * through the helper when small, through `putArchive` otherwise. Regular files, directories and symlinks are kept with their modes and mtimes;
 * sockets, FIFOs and devices are skipped.
 */
import { createReadStream } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extract, pack, type Pack } from 'tar-stream';

export interface TarOwner {
  uid: number;
  gid: number;
}

export interface PackOptions {
  /**
   * Files and directories are writable by their owner, whatever their mode on the host: for a
   * sandbox whose user is not root, which could not otherwise edit a file that is read-only on disk.
   */
  ownerWritable?: boolean;
}

/** A tar stream of the *contents* of `hostDir` (entry names are relative, without a leading `./`). */
export function packDirectory(hostDir: string, owner: TarOwner = { uid: 0, gid: 0 }, options: PackOptions = {}): Pack {
  const archive = pack();
  void addTree(archive, hostDir, '', owner, options.ownerWritable ? 0o200 : 0).then(
    () => archive.finalize(),
    (error: unknown) => archive.destroy(error as Error),
  );
  return archive;
}

async function addTree(archive: Pack, root: string, relative: string, owner: TarOwner, addMode: number): Promise<void> {
  const entries = await readdir(join(root, relative), { withFileTypes: true });
  for (const entry of entries) {
    const name = relative ? `${relative}/${entry.name}` : entry.name;
    const full = join(root, name);
    const info = await lstat(full);
    const header = { name, mode: (info.mode & 0o7777) | (info.isSymbolicLink() ? 0 : addMode), mtime: info.mtime, uid: owner.uid, gid: owner.gid };
    if (info.isSymbolicLink()) {
      archive.entry({ ...header, type: 'symlink', linkname: await readlink(full) });
    } else if (info.isDirectory()) {
      archive.entry({ ...header, type: 'directory' });
      await addTree(archive, root, name, owner, addMode);
    } else if (info.isFile()) {
      await addFile(archive, full, { ...header, size: info.size });
    }
  }
}

async function addFile(archive: Pack, path: string, header: Parameters<Pack['entry']>[0]): Promise<void> {
  const sink = archive.entry({ ...header, type: 'file' });
  await pipeline(createReadStream(path), sink);
}

/**
 * The whole archive in memory, or null (the stream is then abandoned) as soon as it grows past
 * `limitBytes`.
 */
export async function archiveBytes(archive: Pack, limitBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of archive) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) {
      archive.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * `archive` (a tar stream, e.g. the engine's of a path in an image) with every entry given to
 * `owner`, so a sandbox user extracting it can keep the modes (it may not chown to root, and
 * tarfile then skips the mode too). Devices and FIFOs are left out, as packDirectory does.
 */
export function reownArchive(archive: NodeJS.ReadableStream, owner: TarOwner): Pack {
  const out = pack();
  const entries = extract();
  entries.on('entry', (header, stream, next) => {
    if (!['file', 'directory', 'symlink', 'link', 'contiguous-file'].includes(header.type ?? 'file')) {
      stream.resume();
      stream.on('end', next);
      return;
    }
    stream.pipe(out.entry({ ...header, uid: owner.uid, gid: owner.gid, uname: '', gname: '' }, next));
  });
  entries.on('finish', () => out.finalize());
  entries.on('error', (error: Error) => out.destroy(error));
  archive.on('error', (error: Error) => out.destroy(error));
  archive.pipe(entries);
  return out;
}
