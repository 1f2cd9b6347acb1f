// The tools/list answer, written here rather than by the SDK so that what a model reads fits its
// context (TOOL_LIST_MAX_BYTES, asserted in test/mcp-assistant-size.test.ts): the SDK would print
// each zod schema whole, regular expressions, safe-integer bounds and output schemas included
// (60 KB for fourteen tools). The input schemas are the zod schemas the calls are validated with,
// converted as the SDK converts them (JSON Schema draft-07), then slimmed (slim-schema.ts).
// No output schema is listed: a result's fields are what the REST body holds (docs/MCP.md), the
// description says what matters in it, and the JSON itself comes back as text and structuredContent.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { slimInputSchema } from './slim-schema.js';
import type { ToolSpec } from './tool-spec.js';

/** The most tools/list may weigh, all tools together (bytes of its JSON). */
export const TOOL_LIST_MAX_BYTES = 20 * 1024;

/** What tools/list shows of one tool, given the arguments it advertises. */
export function listedTool(spec: ToolSpec, input: z.ZodRawShape): Tool {
  // JSON Schema 2020-12, MCP's default dialect (2025-11-25), so no `$schema` needs saying.
  const { $schema: _default, ...inputSchema } = z.toJSONSchema(z.object(input), { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  // The title is said once, not again among the annotations.
  const { title: _same, ...annotations } = spec.annotations;
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: slimInputSchema(inputSchema) as Tool['inputSchema'],
    annotations,
  };
}
