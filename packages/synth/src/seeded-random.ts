/** mulberry32: a small, fast 32-bit generator; the same seed gives the same sequence everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded Fisher–Yates shuffle (a new array). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let index = out.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [out[index], out[other]] = [out[other] as T, out[index] as T];
  }
  return out;
}

/**
 * Shuffle each group (by `key`) with the seed, then take one of each group in turn, so that a
 * prolific kind of candidate (there are many more variables than loops) does not crowd out the others.
 */
export function interleaved<T>(items: readonly T[], key: (item: T) => string, random: () => number): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const name = key(item);
    if (!groups.has(name)) groups.set(name, []);
    (groups.get(name) as T[]).push(item);
  }
  const queues = [...groups.keys()].sort().map((name) => shuffled(groups.get(name) as T[], random));
  const out: T[] = [];
  for (let round = 0; out.length < items.length; round += 1) {
    for (const queue of queues) if (round < queue.length) out.push(queue[round] as T);
  }
  return out;
}
