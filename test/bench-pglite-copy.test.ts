// The search bench loads the embedded store by binary COPY (test/bench/pglite-copy.ts): the rows it
// stores must be the rows an INSERT of the same values stores, vectors to the last bit included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { createPglite } from '../services/kit/db/pglite-database.js';
import { realArrayLiteral } from '../services/search/pipeline/vectors.js';
import { binaryCopy } from './bench/pglite-copy.js';

describe('binary COPY of the search bench into the embedded store', () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await createPglite('memory://');
    await db.exec('CREATE TABLE copied (id text, body text, embedding real[]); CREATE TABLE inserted (LIKE copied)');
  });
  afterAll(() => db.close());

  it('stores the same text and the same float4 values as an INSERT of the literals', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const vectors = Array.from({ length: 200 }, (_, i) => realArrayLiteral(Array.from({ length: 100 }, (_, j) => ((i + j) % 3 === 0 ? 0 : random() / (1 + j)))));
    const bodies = vectors.map((_, i) => ['plain', 'tab\there', 'line\nbreak', 'back\\slash', 'Zoë Ærø 東京 🧬', ''][i % 6]!);
    const ids = vectors.map((_, i) => `p${i}`);
    vectors.push('{}');
    bodies.push('empty vector');
    ids.push('p-empty');

    await db.query(`COPY copied (id, body, embedding) FROM '/dev/blob' WITH (FORMAT binary)`, [], { blob: binaryCopy([ids, bodies, vectors], new Set([2])) });
    await db.query('INSERT INTO inserted SELECT id, body, e::real[] FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, body, e)', [ids, bodies, vectors]);

    const differing = await db.query<{ id: string }>(
      'SELECT id FROM copied c FULL JOIN inserted i USING (id) WHERE c.body IS DISTINCT FROM i.body OR c.embedding IS DISTINCT FROM i.embedding',
    );
    expect(differing.rows).toEqual([]);
    const counted = await db.query<{ n: number; floats: number }>('SELECT count(*)::int AS n, sum(coalesce(cardinality(embedding), 0))::int AS floats FROM copied');
    expect(counted.rows[0]).toEqual({ n: 201, floats: 20_000 });
  });
});
