// A request body's bytes as text, on both edge ports (REST's JSON parser, the MCP port): only
// UTF-8 is read (RFC 8259), and bytes that are not UTF-8 — an overlong form such as 0xC0 0xAF, an
// encoded surrogate (0xED 0xA0 0x80), a stray continuation byte, 0xFF — make the body unreadable:
// 400 bad_request before it is parsed, so nothing runs and nothing is stored. Decoding them as
// U+FFFD instead would store text the client never sent. A byte order mark is left in the text,
// where the JSON parser judges it as before.
import { ApiError } from './api-error.js';

export const NOT_UTF8_MESSAGE = 'the body is not valid UTF-8';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text; 400 bad_request when its bytes are not UTF-8. */
export function utf8BodyText(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ApiError(400, 'bad_request', NOT_UTF8_MESSAGE);
  }
}
