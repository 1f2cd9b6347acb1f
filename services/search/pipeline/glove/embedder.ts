// The default embedder, `glove-6b-100d-sif`: GloVe 6B 100-d word vectors (model-file.ts), a text's
// vector being the SIF-weighted average of its words' vectors (Arora, Liang & Ma 2017, "A simple but
// tough-to-beat baseline for sentence embeddings"): weight a / (a + p(w)), p(w) estimated from the
// word's frequency rank by Zipf's law, so "the"-like words count for little and rare, telling words
// for much. Local, CPU only, deterministic; the model is loaded once per process.
//
// Words: the word-like segments Intl.Segmenter finds (Unicode word boundaries, UAX #29), found by
// one regular expression (WORD_SEGMENT), lower-cased, English stop words (the stopword package)
// dropped. A word outside the vocabulary is looked up by its Porter2 stem ("cardiologists" is in, but
// rarer inflections may not be), else skipped.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { LocalEmbedder, unitLength, type WeightedText } from '../embedders.js';
import { DEFAULT_SETTINGS, ensureModel } from './build.js';
import { type BuildSettings, type ModelHeader, modelDir, modelPath, readHeader } from './model-file.js';

/** SIF's smoothing constant: the paper's recommended range is 1e-4–1e-3. */
const SIF_A = 1e-3;

// Both packages are CommonJS without type declarations: required and typed here, so no ambient
// module declaration is needed (one elsewhere would clash with it).
const require = createRequire(import.meta.url);
const { eng } = require('stopword') as { eng: string[] };
const porter2 = require('wink-porter2-stemmer') as (word: string) => string;

const STOP_WORDS = new Set(eng);

/**
 * Intl.Segmenter's word-like segments for every script this vocabulary (a–z) can match: runs of
 * letters, marks, digits and underscores, joined across an apostrophe, period, colon or middle dot
 * between letters ("don't", "owl:imports") and an apostrophe, period, comma or semicolon between
 * digits ("40,000", "3.14"), as UAX #29 joins them. Intl.Segmenter itself took 30 times as long
 * (1.2–1.4 s against 38 ms for 5,330 profiles and queries, the same 687,021 words) and was half
 * the embedder's time when indexing; glove.test.ts holds the two equal. (Only dictionary-segmented
 * scripts — Chinese, Japanese — differ, and no word of theirs is in the vocabulary.)
 */
const WORD_SEGMENT = /[\p{L}\p{M}\p{N}_]+(?:(?:(?<=\p{L}\p{M}*)[:.'’·](?=\p{L})|(?<=\p{N})[,.;'’](?=\p{N}))[\p{L}\p{M}\p{N}_]+)*/gu;

/** Lower-cased word-like segments. */
export function wordSegments(text: string): string[] {
  return text.toLowerCase().match(WORD_SEGMENT) ?? [];
}

/** Lower-cased word-like segments, stop words dropped. */
export function words(text: string): string[] {
  return wordSegments(text).filter((word) => !STOP_WORDS.has(word));
}

export class GloveModel {
  readonly dimensions: number;
  readonly size: number;
  private readonly index = new Map<string, number>();
  private readonly weights: Float32Array;
  private readonly scales: Float32Array;
  private readonly vectors: Int8Array;

  constructor(
    readonly header: ModelHeader,
    buffer: Buffer,
    bodyStart: number,
  ) {
    const { offsets } = header;
    this.dimensions = header.dimensions;
    this.size = header.words;
    const wordList = buffer.toString('utf8', bodyStart + offsets.words, bodyStart + offsets.words + offsets.wordsBytes).split('\n');
    for (let i = 0; i < wordList.length; i++) this.index.set(wordList[i]!, i);
    // Views over the file's bytes, no copy: the body starts 4-byte aligned in the file, and a file
    // this big is read into its own ArrayBuffer (copied only if it ever is not aligned).
    const at = (offset: number, bytes: number) => {
      const start = buffer.byteOffset + bodyStart + offset;
      return start % 4 === 0 ? { buffer: buffer.buffer, start } : { buffer: buffer.buffer.slice(start, start + bytes), start: 0 };
    };
    const r = at(offsets.ranks, 4 * this.size);
    const ranks = new Uint32Array(r.buffer, r.start, this.size);
    const s = at(offsets.scales, 4 * this.size);
    this.scales = new Float32Array(s.buffer, s.start, this.size);
    this.vectors = new Int8Array(buffer.buffer, buffer.byteOffset + bodyStart + offsets.vectors, this.size * this.dimensions);
    // Zipf: p(rank r) = 1 / (r · H_n), H_n ≈ ln n + γ over the source's n words.
    const harmonic = Math.log(header.sourceWords) + 0.5772156649;
    this.weights = new Float32Array(this.size);
    for (let i = 0; i < this.size; i++) this.weights[i] = SIF_A / (SIF_A + 1 / (ranks[i]! * harmonic));
  }

  static read(file: string): GloveModel {
    const buffer = readFileSync(file);
    const header = readHeader(file);
    if (!header) throw new Error(`${file} is not a model file`);
    return new GloveModel(header, buffer, 12 + buffer.readUInt32LE(8));
  }

  /** The vocabulary entry of a word, trying its Porter2 stem when the word itself is not kept. */
  lookup(word: string): number | undefined {
    return this.index.get(word) ?? this.index.get(porter2(word));
  }

  /**
   * Adds `weight` × the SIF-weighted average of the text's known words to `into`; returns whether
   * any word was known.
   */
  addAverage(text: string, weight: number, into: Float64Array): boolean {
    const dims = this.dimensions;
    const ids: number[] = [];
    let total = 0;
    for (const word of words(text)) {
      const id = this.lookup(word);
      if (id === undefined) continue;
      ids.push(id);
      total += this.weights[id]!;
    }
    if (total === 0) return false;
    for (const id of ids) {
      const f = (weight * this.weights[id]! * this.scales[id]!) / total;
      const base = id * dims;
      for (let d = 0; d < dims; d++) into[d]! += f * this.vectors[base + d]!;
    }
    return true;
  }
}

/**
 * Text → vector. Each weighted part (a field, or the query and each expansion) contributes its own
 * SIF average times its weight, so a long bio does not drown a short headline; L2-normalised. A text
 * with no known word gets the zero vector (cosine 0 with everything).
 */
export class GloveSifEmbedder extends LocalEmbedder {
  readonly name = 'glove-6b-100d-sif';

  constructor(readonly model: GloveModel) {
    super();
  }

  vector(parts: readonly WeightedText[]): number[] {
    const sum = new Float64Array(this.model.dimensions);
    for (const part of parts) if (part.weight > 0) this.model.addAverage(part.text, part.weight, sum);
    return unitLength(sum);
  }
}

export interface LoadedModel {
  model: GloveModel;
  file: string;
  /** Whether this load had to build the file first (the install step did not run). */
  built: boolean;
  ms: number;
}

const loaded = new Map<string, LoadedModel>();

/**
 * The model, read once per process per file; built first when the file is missing or stale (the
 * install step did not run, or the package changed). Throws when it can be neither read nor built.
 */
export function loadGloveModel(options: { dir?: string; settings?: BuildSettings } = {}): LoadedModel {
  const settings = options.settings ?? DEFAULT_SETTINGS;
  const file = modelPath(options.dir ?? modelDir(), settings);
  const cached = loaded.get(file);
  if (cached) return cached;
  const started = performance.now();
  const built = ensureModel(file, settings);
  const result = { model: GloveModel.read(file), file, built, ms: performance.now() - started };
  loaded.set(file, result);
  return result;
}
