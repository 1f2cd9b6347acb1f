// How deeply a JSON body may nest (docs/API-DECISIONS.md): 64 levels of objects and arrays. No
// request of the contract comes near it (the deepest, a bulk add, is 3), and a bound here keeps
// every later step that walks a body — validation, the idempotency fingerprint — off a deep stack.
// Checked on the raw text, before it is parsed, so a too-deep body is never built at all.

export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP_MESSAGE = `the body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`;

/**
 * Whether the JSON text opens more than `max` objects/arrays inside each other. A linear scan that
 * skips string contents (escapes included); it answers for well-formed JSON and never throws on
 * malformed text (the parser refuses that afterwards).
 */
export function nestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}
