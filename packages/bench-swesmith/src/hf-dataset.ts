import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchmarkDataError, type LoadProgress } from '@debug-gym/spec';
import { downloadFile } from '@debug-gym/plugin-kit';

/** A dataset on the Hugging Face Hub: its id, a revision (commit or branch) and a split. */
export interface HfDatasetRef {
  repo: string;
  revision: string;
  split: string;
}

/** The original debug-gym's default: `SWE-bench/SWE-smith` at the revision it pins, split `train`. */
export const SWESMITH_DATASET: HfDatasetRef = { repo: 'SWE-bench/SWE-smith', revision: '699b53400d3855206a0fbf3ff4beaf1a52f4f232', split: 'train' };

/** `$HF_ENDPOINT` (as huggingface_hub reads it), else https://huggingface.co. */
export function hubEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return (env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/(?<!\/)\/+$/, '');
}

const slug = (dataset: HfDatasetRef): string => `${dataset.repo.replaceAll('/', '__')}-${dataset.split}-${dataset.revision.slice(0, 12)}`;

/**
 * The split's Parquet shards (`data/<split>-NNNNN-of-NNNNN.parquet`, the layout `datasets` pushes),
 * listed through the Hub's tree API at the revision and downloaded once into
 * `<cacheDir>/<benchmark>/<dataset>/`. Returns the local files in shard order.
 */
export async function fetchHfDataset(options: {
  benchmark: string;
  cacheDir: string;
  dataset: HfDatasetRef;
  download?: boolean;
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}): Promise<{ files: string[]; source: string; downloaded: boolean }> {
  const { dataset, benchmark } = options;
  const dir = join(options.cacheDir, benchmark, slug(dataset));
  const manifest = join(dir, 'shards.json');
  const endpoint = hubEndpoint(options.env);
  const source = `${endpoint}/datasets/${dataset.repo}@${dataset.revision} (${dataset.split})`;
  const offlineFix = `download the split's Parquet files (${endpoint}/datasets/${dataset.repo}/tree/${dataset.revision}/data) on a machine with network and pass one with --data-path (JSON, JSONL or Parquet), or copy ${dir} from such a machine`;
  if (existsSync(manifest)) {
    const shards = JSON.parse(await readFile(manifest, 'utf8')) as string[];
    const files = shards.map((name) => join(dir, name));
    if (files.every((file) => existsSync(file))) return { files, source: `${source}, cached in ${dir}`, downloaded: false };
  }
  if (options.download === false) {
    throw new BenchmarkDataError(benchmark, `${dataset.repo} is not in the cache and downloads are disabled`, { file: dir, fix: `allow downloads, or ${offlineFix}` });
  }
  options.onProgress?.({ phase: 'download', message: `listing ${dataset.repo}@${dataset.revision.slice(0, 12)}` });
  const listUrl = `${endpoint}/api/datasets/${dataset.repo}/tree/${encodeURIComponent(dataset.revision)}/data`;
  let listing: Array<{ type?: string; path?: string }>;
  try {
    const response = await fetch(listUrl, { ...(options.signal ? { signal: options.signal } : {}), headers: authHeaders(options.env) });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    listing = (await response.json()) as Array<{ type?: string; path?: string }>;
  } catch (error) {
    throw new BenchmarkDataError(benchmark, `cannot list ${dataset.repo}@${dataset.revision} on the Hub (${(error as Error).message})`, { file: listUrl, fix: offlineFix, cause: error });
  }
  // eslint-disable-next-line no-restricted-syntax -- the dataset's split name, escaped: a literal between anchors
  const pattern = new RegExp(`^data/${dataset.split.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d+-of-\\d+\\.parquet$`);
  const shards = listing.filter((entry) => entry.type !== 'directory' && typeof entry.path === 'string' && pattern.test(entry.path)).map((entry) => entry.path as string).sort();
  if (shards.length === 0) {
    throw new BenchmarkDataError(benchmark, `${dataset.repo}@${dataset.revision} has no Parquet files of split '${dataset.split}' under data/`, { file: listUrl, fix: 'check the dataset id, revision and split, or pass a local file with --data-path' });
  }
  await mkdir(dir, { recursive: true });
  const names: string[] = [];
  for (const [index, path] of shards.entries()) {
    const name = path.slice('data/'.length);
    const target = join(dir, name);
    names.push(name);
    if (existsSync(target)) continue;
    options.onProgress?.({ phase: 'download', message: `downloading ${path}`, done: index, total: shards.length });
    await downloadFile(`${endpoint}/datasets/${dataset.repo}/resolve/${encodeURIComponent(dataset.revision)}/${path}`, target, {
      benchmark,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  await writeFile(`${manifest}.partial`, JSON.stringify(names));
  await rename(`${manifest}.partial`, manifest);
  return { files: names.map((name) => join(dir, name)), source, downloaded: true };
}

function authHeaders(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const token = env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN;
  return token ? { authorization: `Bearer ${token}` } : {};
}
