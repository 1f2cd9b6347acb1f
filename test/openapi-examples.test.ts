// The committed OpenAPI examples (gateway/rest/openapi/examples.json) against a fresh recording:
// the system is started as `npm start` would (one process, ports 0, the demo data), every recipe
// runs again (deploy/examples/capture.ts), and each example must come out as committed — a changed
// answer, field, status or message shows here as the example it changed. Moments are compared by
// place only (they are stand-ins; which two coincide to the millisecond varies with load).
import { beforeAll, describe, expect, it } from 'vitest';
import { captureExamples } from '../deploy/examples/capture.js';
import { EXAMPLE_CLOCK } from '../deploy/examples/normalise.js';
import { EXAMPLES } from '../gateway/rest/openapi/examples.js';
import type { ExamplesFile } from '../gateway/rest/openapi/examples.js';

const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g;

/** Each example as text, with the run's moments (at or after the example clock) masked. */
function byExample(file: ExamplesFile): Map<string, string> {
  const mask = (text: string) => text.replace(TIMESTAMP, (m) => (Date.parse(m) >= EXAMPLE_CLOCK ? '<moment of the run>' : m));
  return new Map(Object.entries(file).flatMap(([op, list]) => list.map((x) => [`${op}/${x.name}`, mask(JSON.stringify(x, null, 1))])));
}

describe('OpenAPI examples against a fresh recording', () => {
  let fresh: Map<string, string>;
  const committed = byExample(EXAMPLES);

  beforeAll(async () => {
    fresh = byExample(await captureExamples());
  }, 900_000);

  it('records the same examples as committed (otherwise run `npm run examples` and commit the result)', () => {
    expect([...fresh.keys()].sort()).toEqual([...committed.keys()].sort());
    for (const [key, text] of fresh) expect(text, `${key} changed: run \`npm run examples\``).toBe(committed.get(key));
  });
});
