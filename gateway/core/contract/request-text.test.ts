// The text rule (services/kit/request-text.ts) reaches every text field of every request: each
// string (plain or a format such as email, URL or datetime) found by walking each endpoint's path,
// query, header and body schema, and each MCP tool's input schema, carries the shared check, refuses
// a value holding U+0000 or a lone surrogate (high or low) with its message, and lets a noncharacter
// through. A string field added without the rule fails here.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { registerTools, SERVER_INFO, type ToolDeps } from '../../mcp/tools.js';
import { ENDPOINTS } from './endpoints.js';
import { NUL_MESSAGE, storableText } from './schemas.js';

interface Def {
  type: string;
  checks?: unknown[];
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  items?: z.ZodType[];
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Every string schema inside `schema`, with its path. */
function strings(schema: z.ZodType, path: string): Array<{ path: string; schema: z.ZodType }> {
  const found: Array<{ path: string; schema: z.ZodType }> = [];
  const stack = [{ schema, path }];
  const seen = new Set<z.ZodType>();
  while (stack.length > 0) {
    const { schema: s, path: p } = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    const def = defOf(s);
    const push = (child: z.ZodType | undefined, at: string) => child && stack.push({ schema: child, path: at });
    switch (def.type) {
      case 'string':
        found.push({ path: p, schema: s });
        break;
      case 'object':
        for (const [key, child] of Object.entries(def.shape ?? {})) push(child, `${p}.${key}`);
        break;
      case 'array':
        push(def.element, `${p}[]`);
        break;
      case 'pipe':
        push(def.in, p);
        push(def.out, p);
        break;
      case 'union':
        def.options?.forEach((o, i) => push(o, `${p}|${i}`));
        break;
      case 'intersection':
        push(def.left, p);
        push(def.right, p);
        break;
      case 'record':
        push(def.keyType, `${p}{key}`);
        push(def.valueType, `${p}{}`);
        break;
      case 'tuple':
        def.items?.forEach((o, i) => push(o, `${p}[${i}]`));
        break;
      case 'lazy':
        push(def.getter?.(), p);
        break;
      default:
        push(def.innerType, p);
    }
  }
  return found;
}

function requestSchemas(): Array<{ where: string; schema: z.ZodType }> {
  const out: Array<{ where: string; schema: z.ZodType }> = [];
  for (const e of ENDPOINTS) {
    const name = `${e.method} ${e.path}`;
    if (e.params) out.push({ where: `${name} path`, schema: e.params });
    if (e.query) out.push({ where: `${name} query`, schema: e.query });
    if (e.headers) out.push({ where: `${name} headers`, schema: e.headers });
    if (e.body) out.push({ where: `${name} body`, schema: e.body.schema });
  }
  return out;
}

function toolSchemas(): Array<{ where: string; schema: z.ZodType }> {
  const server = new McpServer(SERVER_INFO);
  // The tools are only listed, never called: no edge or limiter is reached. The idempotency option
  // is set so the tools that take an idempotency_key declare it.
  registerTools(server, { idempotency: {} } as unknown as ToolDeps);
  const tools = (server as unknown as { _registeredTools: Record<string, { inputSchema?: z.ZodType }> })._registeredTools;
  return Object.entries(tools).flatMap(([name, tool]) => (tool.inputSchema ? [{ where: `MCP ${name}`, schema: tool.inputSchema }] : []));
}

describe('text the store cannot keep, in request text', () => {
  const fields = [...requestSchemas(), ...toolSchemas()].flatMap(({ where, schema }) =>
    strings(schema, '').map((s) => ({ name: `${where}${s.path}`, schema: s.schema })),
  );

  it('finds the text fields of the requests (the walk reaches them)', () => {
    const names = fields.map((f) => f.name);
    for (const expected of [
      'POST /v1/search body.query',
      'POST /v1/communities/{id}/members body.members[].linkedin_url',
      'POST /v1/communities/{id}/members headers.idempotency-key',
      'GET /v1/communities/{id}/members query.after',
      'POST /v1/communities/{id}/enrich body.joined_since',
      'MCP search_experts.query',
      'MCP add_community_members.idempotency_key',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it('every text field of every request carries the rule and refuses U+0000 with its message', () => {
    const missing = fields.filter((f) => !(defOf(f.schema).checks ?? []).includes(storableText)).map((f) => f.name);
    expect(missing).toEqual([]);
    for (const field of fields) {
      const parsed = field.schema.safeParse('ok\u0000');
      expect(parsed.success, field.name).toBe(false);
      expect(parsed.error!.issues.map((i) => i.message), field.name).toContain(NUL_MESSAGE);
    }
  });

  it('every text field refuses a lone surrogate, high or low, naming the code unit and where it is', () => {
    for (const field of fields) {
      for (const [value, message] of [
        ['ok\ud800', 'must be well-formed Unicode text: a lone surrogate (U+D800) at character 3 stands for no character'],
        ['\udfffok', 'must be well-formed Unicode text: a lone surrogate (U+DFFF) at character 1 stands for no character'],
        ['\ud83e\udde0\udc00', 'must be well-formed Unicode text: a lone surrogate (U+DC00) at character 3 stands for no character'],
      ] as const) {
        const parsed = field.schema.safeParse(value);
        expect(parsed.success, field.name).toBe(false);
        expect(parsed.error!.issues.map((i) => i.message), field.name).toContain(message);
      }
    }
  });

  it('no text field refuses a noncharacter or a surrogate pair for the text rule (they are Unicode text the store keeps)', () => {
    const ruleMessages = /NUL character|well-formed Unicode/;
    for (const field of fields) {
      for (const value of ['ok\ufffe', '\uffff', '\ufdd0\ufdef', '\u{10ffff}', '\ud83e\udde0']) {
        const parsed = field.schema.safeParse(value);
        const messages = parsed.success ? [] : parsed.error.issues.map((i) => i.message);
        expect(messages.filter((m) => ruleMessages.test(m)), field.name).toEqual([]);
      }
    }
  });
});
