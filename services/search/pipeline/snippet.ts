// Passages for explanations: the part of a profile field where the query's words occur, the
// matching words in **bold**, a few words either side, "…" where the field was cut. Words are
// compared by Porter stem (text.ts), as the ranker compares them, so "editing" in a query lights up
// "edited" and "edit" in the profile.
import { isStopWord, stem, tokenize } from './text.js';

interface Word {
  start: number;
  end: number;
  hit: string | null;
}

/** The words of a text with their offsets, each with the matched stem or null. */
function words(text: string, stems: ReadonlySet<string>): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    const folded = tokenize(m[0]);
    const hit = folded.map((w) => (isStopWord(w) ? null : stem(w))).find((s) => s !== null && stems.has(s)) ?? null;
    out.push({ start: m.index, end: m.index + m[0].length, hit });
  }
  return out;
}

export interface PassageOptions {
  /** Longest passage, in words (default 24). */
  maxWords?: number;
  /** Words kept either side of the matches (default 6). */
  context?: number;
}

/**
 * The passage of `text` holding the most distinct matching stems within `maxWords` words, with
 * those words in **bold**; null when nothing matches.
 */
export function passage(text: string, stems: ReadonlySet<string>, options: PassageOptions = {}): string | null {
  const maxWords = options.maxWords ?? 24;
  const context = options.context ?? 6;
  const all = words(text, stems);
  const hits = all.flatMap((w, i) => (w.hit ? [i] : []));
  if (hits.length === 0) return null;
  // The window of maxWords words (starting at a hit) with the most distinct stems; the first wins ties.
  let best = { from: hits[0]!, to: hits[0]!, distinct: 0 };
  for (const from of hits) {
    const inside = hits.filter((i) => i >= from && i < from + maxWords);
    const distinct = new Set(inside.map((i) => all[i]!.hit)).size;
    if (distinct > best.distinct) best = { from, to: inside[inside.length - 1]!, distinct };
  }
  const first = Math.max(0, best.from - context);
  const last = Math.min(all.length - 1, best.to + context, first + maxWords + 2 * context - 1);
  let out = '';
  let at = all[first]!.start;
  for (let i = first; i <= last; i++) {
    const w = all[i]!;
    out += text.slice(at, w.start);
    const word = text.slice(w.start, w.end);
    out += w.hit ? `**${word}**` : word;
    at = w.end;
  }
  // Keep a closing punctuation mark that ends the field.
  if (last === all.length - 1) out += text.slice(at).trimEnd();
  const prefix = first > 0 ? '…' : '';
  const suffix = last < all.length - 1 ? '…' : '';
  // Adjacent bold words read as one phrase: "**gene** **editing**" → "**gene editing**".
  return `${prefix}${out.trim()}${suffix}`.replace(/\*\*(\s+)\*\*/g, '$1');
}
