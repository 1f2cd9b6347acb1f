// The request/response examples of the OpenAPI document: exchanges recorded from a real run of the
// system over the demo data (`npm run examples`, deploy/examples/), committed in examples.json and
// placed by build-openapi.ts into each operation's parameters, request body and responses. Only
// the shape of the file is declared here; examples.test.ts checks every operation has examples and
// that each one passes the schemas the routes validate with.
import { z } from 'zod';
import captured from './examples.json' with { type: 'json' };

const Json: z.ZodType<unknown> = z.unknown();
const Strings = z.record(z.string(), z.string());

export const ExampleExchange = z.strictObject({
  /** Key of the example in the document's `examples` maps; unique within its operation. */
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  summary: z.string().min(1),
  request: z.strictObject({
    params: Strings.optional(),
    query: Strings.optional(),
    /** Request headers the operation declares (Idempotency-Key), lower-case names. */
    headers: Strings.optional(),
    body: Json.optional(),
  }),
  response: z.strictObject({
    status: z.number().int(),
    /** Location of a 202, the only response header an example records. */
    location: z.string().optional(),
    body: Json,
  }),
});
export type ExampleExchange = z.infer<typeof ExampleExchange>;

/** operationId → its exchanges, in the order they were recorded. */
export const ExamplesFile = z.record(z.string(), z.array(ExampleExchange).min(1));
export type ExamplesFile = z.infer<typeof ExamplesFile>;

/** The committed examples (parsed once: a malformed file fails at load, naming the field). */
export const EXAMPLES: ExamplesFile = ExamplesFile.parse(captured);

export function examplesOf(operationId: string): readonly ExampleExchange[] {
  return EXAMPLES[operationId] ?? [];
}
