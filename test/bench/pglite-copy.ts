// Column arrays as PostgreSQL's binary COPY format, for the search bench's load into the embedded
// store (`COPY … FROM '/dev/blob' WITH (FORMAT binary)`, PGlite's `blob` query option). Measured
// on PGlite, one 10,000-document batch: INSERT … SELECT FROM unnest(text[] parameters) 5.0–5.2 s,
// COPY in text format 4.2–5.7 s, binary COPY 2.4–3.1 s. Half of what binary saves is float
// parsing: casting the vectors' literals to real[] alone took 1.7–1.9 s of the INSERT.
//
// Text columns go as UTF-8; real[] columns (given as the array literals the product writes,
// realArrayLiteral) as float4 arrays, each element the float4 its decimal parses to — the same
// value PostgreSQL's float4in gives the literal, so the stored rows are those an INSERT stores.

const FLOAT4_OID = 700;
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** The elements of a real[] literal (`{0,0.1234567,…}`: one dimension, no NULLs). */
function elements(literal: string): string[] {
  const body = literal.slice(1, -1);
  return body === '' ? [] : body.split(',');
}

/**
 * Rows given as column arrays (all of one length, no NULLs) as one binary COPY stream; the
 * columns at `realArrays` hold real[] literals, every other one text. Written into one buffer
 * sized first: a buffer per field made encoding cost a third of the COPY itself.
 */
export function binaryCopy(columns: readonly string[][], realArrays: ReadonlySet<number>): Blob {
  const rows = columns[0]?.length ?? 0;
  const parsed = columns.map((column, c) => (realArrays.has(c) ? column.map(elements) : null));
  let size = SIGNATURE.length + 8 + 2;
  for (let r = 0; r < rows; r++) {
    size += 2;
    columns.forEach((column, c) => {
      const values = parsed[c]?.[r];
      size += 4 + (values ? 20 + 8 * values.length : Buffer.byteLength(column[r]!, 'utf8'));
    });
  }
  const out = Buffer.allocUnsafe(size);
  let at = SIGNATURE.copy(out);
  at = out.writeInt32BE(0, at); // flags
  at = out.writeInt32BE(0, at); // header extension
  for (let r = 0; r < rows; r++) {
    at = out.writeInt16BE(columns.length, at);
    columns.forEach((column, c) => {
      const values = parsed[c]?.[r];
      if (!values) {
        const length = out.write(column[r]!, at + 4, 'utf8');
        at = out.writeInt32BE(length, at) + length;
        return;
      }
      at = out.writeInt32BE(20 + 8 * values.length, at);
      at = out.writeInt32BE(1, at); // dimensions
      at = out.writeInt32BE(0, at); // no NULLs
      at = out.writeInt32BE(FLOAT4_OID, at);
      at = out.writeInt32BE(values.length, at);
      at = out.writeInt32BE(1, at); // lower bound
      for (const v of values) at = out.writeFloatBE(Number(v), out.writeInt32BE(4, at));
    });
  }
  out.writeInt16BE(-1, at);
  return new Blob([out]);
}
