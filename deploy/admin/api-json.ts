// The API's own names and values for what the services answer: snake_case fields, lower-case enum
// values without their proto prefix (`KEY_ENVIRONMENT_TEST` → `test`, `OWNER_TYPE_USER` → `user`),
// and every field present (a false flag stays `false`, an absent message is `null`), so a script
// reads the admin CLI's JSON as it reads the REST API's.

/** A generated message's JSON encoder (ts-proto's `toJSON`), which names enum values. */
export interface JsonEncoder<T> {
  toJSON(message: T): unknown;
}

// Every enum of the protos, as buf's lint makes their values start (longest first, so that
// `RUN_ITEM_STATUS_` wins over a shorter prefix of another enum).
const ENUM_PREFIXES = [
  'ADD_MEMBER_STATUS_', 'CONSENT_STATUS_', 'CREDENTIAL_KIND_', 'KEY_ENVIRONMENT_', 'RUN_ITEM_STATUS_', 'PAYER_SOURCE_',
  'SEARCH_STATUS_', 'SEARCH_SCOPE_', 'OWNER_TYPE_', 'RUN_STATUS_', 'RATE_TIER_', 'RUN_KIND_', 'ACCESS_', 'DEPTH_', 'PLAN_', 'ROLE_',
].sort((a, b) => b.length - a.length);

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function enumValue(name: string): string {
  const prefix = ENUM_PREFIXES.find((p) => name.startsWith(p));
  return (prefix ? name.slice(prefix.length) : name).toLowerCase();
}

/**
 * Walks the message as decoded (every field, defaults included) beside its proto JSON (enum names):
 * a number whose JSON is a string is an enum value.
 */
function convert(raw: unknown, json: unknown): unknown {
  if (Array.isArray(raw)) return raw.map((item, i) => convert(item, Array.isArray(json) ? json[i] : undefined));
  if (raw && typeof raw === 'object') {
    const encoded = json && typeof json === 'object' ? (json as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(raw).map(([key, value]) => [snakeCase(key), convert(value, encoded[key])]));
  }
  if (typeof raw === 'number' && typeof json === 'string') return enumValue(json);
  return raw ?? null;
}

/** A gRPC response in the API's names and values. */
export function apiJson<T>(encoder: JsonEncoder<T>, message: T): Record<string, unknown> {
  return convert(message, encoder.toJSON(message)) as Record<string, unknown>;
}
