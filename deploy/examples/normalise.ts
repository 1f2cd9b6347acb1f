// Makes a recorded run stable, so `npm run examples` rewrites the same file every time and
// publishes nothing of the run it came from: every value the system made up for that run — ids it
// generated, the display prefix of the demo key, the seal of a roster cursor (a MAC keyed by the
// server pepper), the moments things happened — is replaced by a fixed stand-in of the same shape.
// Values from the demo data (its ids, its join dates) are kept: they are the same on every run.
import { mulberry32 } from '../admin/demo-data/random.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const BASE64URL = `${ALNUM}-_`;

/** FNV-1a: a seed for the stand-in of the n-th value of a kind, whatever came before in other kinds. */
function seedOf(label: string): number {
  let hash = 0x811c9dc5;
  for (const ch of label) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

function standIn(label: string, length: number, alphabet: string): string {
  const rng = mulberry32(seedOf(label));
  return Array.from({ length }, () => alphabet[Math.floor(rng() * alphabet.length)]).join('');
}

interface VolatileKind {
  pattern: RegExp;
  replace(match: string, n: number): string;
}

const EDGE = '(?<![A-Za-z0-9_-])';
const END = '(?![A-Za-z0-9_-])';

/** Values a run makes up, by shape (services/kit/ids.ts, search ids, key secrets and prefixes, cursor seals). */
const KINDS: VolatileKind[] = [
  {
    pattern: new RegExp(`${EDGE}(run|p|u|key|consent|grant|evt|we|wdl)_[A-Za-z0-9_-]{16}${END}`, 'g'),
    replace: (m, n) => `${m.slice(0, m.indexOf('_'))}_${standIn(`${m.slice(0, m.indexOf('_'))}#${n}`, 16, ALNUM)}`,
  },
  { pattern: new RegExp(`${EDGE}srch_[0-9a-f]{32}${END}`, 'g'), replace: (_m, n) => `srch_${standIn(`srch#${n}`, 32, HEX)}` },
  { pattern: /whsec_[A-Za-z0-9+/]{32}/g, replace: (_m, n) => `whsec_${standIn(`whsec#${n}`, 32, ALNUM)}` },
  { pattern: new RegExp(`${EDGE}svc_(live|test)_[0-9A-Za-z]{6,}${END}`, 'g'), replace: (m, n) => m.slice(0, 9) + standIn(`svc#${n}`, m.length - 9, ALNUM) },
  { pattern: new RegExp(`(?<=[A-Za-z0-9_-]{16}\\.)[A-Za-z0-9_-]{43}${END}`, 'g'), replace: (_m, n) => standIn(`seal#${n}`, 43, BASE64URL) },
];

const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
/** The moment the first thing of a run happens in the examples; later ones follow a second apart. */
export const EXAMPLE_CLOCK = Date.UTC(2026, 10, 2, 9, 30);

/** Maps each distinct match to its stand-in, numbered in order of first appearance. */
function replaceAll(text: string, kind: VolatileKind): string {
  const seen = new Map<string, string>();
  for (const [match] of text.matchAll(kind.pattern)) if (!seen.has(match)) seen.set(match, kind.replace(match, seen.size + 1));
  return text.replace(kind.pattern, (match) => seen.get(match)!);
}

/** Moments at or after the run started are the run's own: ranked, and placed a second apart. */
function replaceMoments(text: string, runStartedAt: number): string {
  const moments = [...new Set([...text.matchAll(TIMESTAMP)].map(([m]) => m))].filter((m) => Date.parse(m) >= runStartedAt);
  moments.sort((a, b) => Date.parse(a) - Date.parse(b) || a.localeCompare(b));
  const standIns = new Map(moments.map((m, rank) => [m, new Date(EXAMPLE_CLOCK + rank * 1000).toISOString()]));
  return text.replace(TIMESTAMP, (m) => standIns.get(m) ?? m);
}

/** The recorded value with every run-made value replaced; `runStartedAt` is when the system started. */
export function normaliseRun<T>(recorded: T, runStartedAt: number): T {
  let text = JSON.stringify(recorded);
  for (const kind of KINDS) text = replaceAll(text, kind);
  return JSON.parse(replaceMoments(text, runStartedAt)) as T;
}
