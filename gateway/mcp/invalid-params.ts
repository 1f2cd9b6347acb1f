// A request whose params break the method's schema (say `tools/call` with `arguments: "text"`) is
// refused by the SDK only inside its request handler, where the schema's error is answered as a
// JSON-RPC internal error (-32603) carrying the raw validation dump. Such a request is the caller's
// mistake, not a server failure: it is answered here, before the SDK sees it, with -32602 Invalid
// params and a one-line reason. Found by test/fuzz-mcp.test.ts.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/** The methods this server handles, by the schema their requests must meet. */
const SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
};

/** Why a request's params are invalid, or undefined when they are valid (or it is not a request we check). */
export function invalidParamsReason(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const schema = SCHEMAS[message.method];
  if (!schema) return undefined;
  const parsed = schema.safeParse({ method: message.method, params: message.params });
  if (parsed.success) return undefined;
  const issue = parsed.error?.issues[0];
  const where = issue?.path.map(String).join('.') || 'params';
  return `Invalid params: ${where}: ${issue?.message ?? 'does not match the method’s schema'}`;
}

/** Wraps a connected transport so that requests with invalid params are answered -32602 without reaching the server. */
export function refuseInvalidParams(transport: Transport): void {
  const forward = transport.onmessage;
  if (!forward) throw new Error('connect the server to the transport first');
  transport.onmessage = (message, extra) => {
    const reason = invalidParamsReason(message);
    if (reason === undefined || !('id' in message)) return forward(message, extra);
    void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: reason } }, { relatedRequestId: message.id });
  };
}
