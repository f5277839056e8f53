import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type LoadProgress } from '@debug-gym/spec';
import { downloadFile } from '@debug-gym/plugin-kit';

export interface HfDataset {
  /** Hugging Face dataset id. */
  repo: string;
  /** A commit of the dataset repository (`main` = unpinned). */
  revision: string;
  split: string;
  /** Instances of the full split. */
  expectedCount: number;
}

/** The public datasets. Verified is pinned where debug-gym pins it; no pinned revision of Lite is known. */
export const SWEBENCH_DATASETS = {
  verified: { repo: 'SWE-bench/SWE-bench_Verified', revision: '99450355ca8c611021187a57ffac304b66666738', split: 'test', expectedCount: 500 },
  lite: { repo: 'SWE-bench/SWE-bench_Lite', revision: 'main', split: 'test', expectedCount: 300 },
} as const satisfies Record<string, HfDataset>;

export type SwebenchDatasetName = keyof typeof SWEBENCH_DATASETS;

/** The split's Parquet file (the layout `datasets` writes: `data/<split>-00000-of-00001.parquet`). */
export function datasetUrl(dataset: HfDataset): string {
  return `https://huggingface.co/datasets/${dataset.repo}/resolve/${dataset.revision}/data/${dataset.split}-00000-of-00001.parquet`;
}

export function datasetCachePath(cacheDir: string, dataset: HfDataset): string {
  const name = dataset.repo.split('/').at(-1) as string;
  return join(cacheDir, 'swebench', `${name}-${dataset.split}-${dataset.revision.slice(0, 12)}.parquet`);
}

/** The dataset file in the cache, downloaded the first time. Returns its path and whether it was downloaded now. */
export async function fetchDataset(options: {
  cacheDir: string;
  dataset: HfDataset;
  url?: string;
  sha256?: string;
  download?: boolean;
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
}): Promise<{ path: string; url: string; downloaded: boolean }> {
  const path = datasetCachePath(options.cacheDir, options.dataset);
  const url = options.url ?? datasetUrl(options.dataset);
  if (existsSync(path)) return { path, url, downloaded: false };
  if (options.download === false) return { path, url, downloaded: false };
  await downloadFile(url, path, {
    benchmark: 'swebench',
    ...(options.sha256 ? { sha256: options.sha256 } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { path, url, downloaded: true };
}
