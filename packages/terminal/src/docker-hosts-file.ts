/**
 * `localhost` in a container without network on a read-only root. Without a network the engine
 * writes no `/etc/hosts` (it makes none without a libnetwork sandbox, which doubles the engine's
 * cost of a start), most images ship an empty one, and the helper can no longer add the lines to a
 * read-only root. So every such container gets, read-only at `/etc/hosts`, one small file the engine
 * keeps in a named volume: made once per engine, found again by every later process.
 */
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { pack } from 'tar-stream';
import { LABEL_APP, LABEL_APP_VALUE, ownerLabels } from './docker-engine.js';

/** The named volume holding the file (a new content gets a new name). */
export const HOSTS_VOLUME = 'debug-gym-localhost-v1';

/** What Docker writes for a container without network. */
export const LOCALHOST_HOSTS = [
  '127.0.0.1\tlocalhost',
  '::1\tlocalhost ip6-localhost ip6-loopback',
  'fe00::0\tip6-localnet',
  'ff00::0\tip6-mcastprefix',
  'ff02::1\tip6-allnodes',
  'ff02::2\tip6-allrouters',
  '',
].join('\n');

const PROBE_MOUNT = '/debug-gym-hosts';
const hostsFiles = new WeakMap<Docker, Promise<string | undefined>>();

/**
 * The engine-side path of the hosts file (made when missing, with `image` for the container that
 * writes it), or undefined when this engine cannot have one (then containers go without). A failure
 * is not remembered: the next start tries again (e.g. once the image is there).
 */
export function localhostHostsFile(docker: Docker, image: string): Promise<string | undefined> {
  let cached = hostsFiles.get(docker);
  if (!cached) {
    cached = makeHostsFile(docker, image);
    hostsFiles.set(docker, cached);
    cached.catch(() => hostsFiles.delete(docker));
  }
  return cached;
}

/** The engine refused the bind (e.g. it cannot see its own volume paths): containers go without. */
export function hostsFileRefused(docker: Docker): void {
  hostsFiles.set(docker, Promise.resolve(undefined));
}

/** Make the hosts file again at the next start (its volume was pruned). */
export function forgetHostsFile(docker: Docker): void {
  hostsFiles.delete(docker);
}

/** A read-only bind of the hosts file at /etc/hosts. */
export function hostsMount(source: string): Docker.MountSettings {
  return { Type: 'bind', Source: source, Target: '/etc/hosts', ReadOnly: true };
}

/** Is this engine error about the hosts file's bind (its source gone, e.g. the volume pruned)? */
export function isHostsMountError(error: unknown, source: string): boolean {
  return String((error as Error)?.message ?? '').includes(source);
}

async function makeHostsFile(docker: Docker, image: string): Promise<string | undefined> {
  const volume = await docker.createVolume({ Name: HOSTS_VOLUME, Labels: { [LABEL_APP]: LABEL_APP_VALUE } });
  const mountpoint = (volume as { Mountpoint?: string }).Mountpoint ?? (await docker.getVolume(HOSTS_VOLUME).inspect()).Mountpoint;
  if (!mountpoint) return undefined;
  // A container that never starts: the engine writes into its volume through the archive API.
  const probe = await docker.createContainer({
    Image: image,
    Entrypoint: [],
    Cmd: ['true'],
    NetworkDisabled: true,
    Labels: ownerLabels(),
    HostConfig: { NetworkMode: 'none', Mounts: [{ Type: 'volume', Source: HOSTS_VOLUME, Target: PROBE_MOUNT }] },
  });
  try {
    // dockerode hands back the HEAD response as an unread stream: left unread, its request never
    // finishes and the socket keeps the process alive until the engine drops it (~5 minutes).
    const present = await probe.infoArchive({ path: `${PROBE_MOUNT}/hosts` }).then(
      (response) => {
        (response as unknown as Readable).resume();
        return true;
      },
      () => false,
    );
    if (!present) await probe.putArchive(await hostsArchive(), { path: PROBE_MOUNT });
  } finally {
    await probe.remove({ force: true, v: false }).catch(() => undefined);
  }
  return `${mountpoint}/hosts`;
}

function hostsArchive(): Promise<Buffer> {
  const archive = pack();
  archive.entry({ name: 'hosts', mode: 0o644, uid: 0, gid: 0 }, LOCALHOST_HOSTS);
  archive.finalize();
  const parts: Buffer[] = [];
  return new Promise((resolve, reject) => {
    archive.on('data', (part: unknown) => parts.push(part as Buffer));
    archive.on('end', () => resolve(Buffer.concat(parts)));
    archive.on('error', reject);
  });
}
