/// <reference lib="es2024.string" />
// The one rule every text a request brings must pass before anything is stored: it is well-formed
// Unicode the store can keep. Two kinds of text fail it:
//   - NUL (U+0000): PostgreSQL text and json cannot hold it;
//   - a lone surrogate (a UTF-16 code unit U+D800–U+DFFF without its partner, as a JSON escape
//     "\ud800" decodes to): it stands for no character. Written to a text column it would come back
//     as U+FFFD, and PostgreSQL's json refuses its escape ("invalid input syntax for type json").
// Noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF and the last two code points of every plane) pass:
// they are Unicode scalar values, which UTF-8, JSON and PostgreSQL keep and give back unchanged,
// and Unicode allows them in interchange (Corrigendum #9). Invalid UTF-8 bytes never get this far:
// a body that is not UTF-8 is refused as unreadable where it is decoded.
//
// Every surface applies this one check where text enters: the REST and MCP request schemas
// (gateway/core/contract/schemas.ts), every service's gRPC door (grpc/unstorable-text.ts), a bulk
// add's items one by one (services/communities/add-members.ts), the settings forms. The message
// names the problem, never the text itself, so an answer never carries the bad text back.

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

const hex = (unit: number) => unit.toString(16).toUpperCase().padStart(4, '0');

/** Index of the first lone surrogate of a string that is not well-formed. */
function loneSurrogateAt(value: string): number {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = value.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * Text that comes from outside any request — a provider's answer an enrichment run stores — made
 * storable rather than refused: NUL dropped, each lone surrogate replaced by U+FFFD (the character
 * that says "a character was lost here"). Requests are never repaired: their text is refused.
 */
export function repairedText(value: string): string {
  return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value).toWellFormed();
}

/** What is wrong with this text (the message, without the field's name), or undefined when it may be stored. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return NUL_MESSAGE;
  if (value.isWellFormed()) return undefined;
  const at = loneSurrogateAt(value);
  return `must be well-formed Unicode text: a lone surrogate (U+${hex(value.charCodeAt(at))}) at character ${at + 1} stands for no character`;
}
