// The embedder benchmark (part of `npm run bench`; alone: `npx tsx test/bench/embedder-bench.ts`):
// the default embedder (glove-6b-100d-sif) against the hashing one (offline-hash-512) in the same
// run on the same machine — loading the model, embedding documents (a person's weighted fields, as
// indexing does) and queries (a query and its WordNet expansions, as ranking does), single-threaded,
// in-process. Documents and queries come from test/search-quality/corpus.ts's generator.
import { statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { GloveSifEmbedder, loadGloveModel, OfflineHashEmbedder, WordNet, type Embedder, type WeightedText } from '../../services/search/pipeline/index.js';
import { personText } from '../../services/search/pipeline/vectors.js';
import { generateCorpus, judgedQueries } from '../search-quality/corpus.js';

const DOCUMENTS = Number(process.env.BENCH_EMBED_DOCUMENTS ?? 20_000);
const ROUNDS = 3;

interface Row {
  name: string;
  dimensions: number;
  docMicros: number;
  queryMicros: number;
}

/** Best of ROUNDS: µs per text (the machine is shared; the best round is the least disturbed). */
function time(embedder: Embedder & { vector(parts: readonly WeightedText[]): number[] }, texts: readonly (readonly WeightedText[])[]): number {
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (const t of texts) embedder.vector(t);
    best = Math.min(best, ((performance.now() - t0) * 1000) / texts.length);
  }
  return best;
}

export async function runEmbedderBench(): Promise<string> {
  const t0 = performance.now();
  const loaded = loadGloveModel();
  const loadMs = performance.now() - t0;
  const glove = new GloveSifEmbedder(loaded.model);
  const hashing = new OfflineHashEmbedder();
  const profiles = generateCorpus(DOCUMENTS, 4242);
  const docs = profiles.map((p) => personText([{ name: p.name, headline: p.headline, bio: p.bio, organization: p.organization, location: p.location, enrichment_text: p.enrichmentText }]));
  const wordnet = WordNet.open();
  const queries = judgedQueries(profiles).map((q): WeightedText[] => [
    { text: q.query, weight: 1 },
    ...(wordnet?.expand(q.query) ?? []).map((e) => ({ text: e.term, weight: e.weight * 0.6 })),
  ]);
  const rows: Row[] = [glove, hashing].map((e) => ({
    name: e.name,
    dimensions: e.vector([{ text: 'x', weight: 1 }]).length,
    docMicros: time(e, docs),
    queryMicros: time(e, queries),
  }));
  const [g, h] = rows as [Row, Row];
  const fileMb = statSync(loaded.file).size / 1e6;
  console.log(`embedder bench: model load ${loadMs.toFixed(0)} ms (${loaded.built ? 'built first' : 'cached file'}); ${rows.map((r) => `${r.name} ${r.docMicros.toFixed(1)} µs/doc, ${r.queryMicros.toFixed(1)} µs/query`).join('; ')}`);
  return `## Search embedders (in-process)

Produced by test/bench/embedder-bench.ts: the default embedder against the hashing one in the same
run, one thread, best of ${ROUNDS} rounds. Documents: ${DOCUMENTS.toLocaleString('en')} generated profiles (all six fields,
as indexing embeds them); queries: the ${queries.length} judged search-quality queries with their WordNet
expansions (as ranking embeds them).

Model file: ${loaded.model.size.toLocaleString('en')} words × ${loaded.model.dimensions} dimensions, int8, ${fileMb.toFixed(1)} MB; loaded in ${loadMs.toFixed(0)} ms${loaded.built ? ' (built first: the install step had not run)' : ''}.

| embedder | dimensions | µs per document | documents/s (one core) | µs per query |
|---|---|---|---|---|
${rows.map((r) => `| ${r.name} | ${r.dimensions} | ${r.docMicros.toFixed(1)} | ${Math.round(1e6 / r.docMicros).toLocaleString('en')} | ${r.queryMicros.toFixed(1)} |`).join('\n')}

Ratio ${g.name} / ${h.name}: ${(g.docMicros / h.docMicros).toFixed(2)}× per document, ${(g.queryMicros / h.queryMicros).toFixed(2)}× per query.
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runEmbedderBench());
  process.exit(0);
}
