// Human-readable output of the admin CLI: a list becomes a table (one row per item, aligned
// columns), a record becomes `field  value` lines. Nested records read as `type:id` for an owner
// reference and `a.b` fields otherwise; lists of plain values are joined with commas.

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One cell: an owner reference as `user:u_x`, a list joined, nothing as empty. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (isRecord(value)) {
    if (typeof value.type === 'string' && typeof value.id === 'string' && Object.keys(value).length === 2) return `${value.type}:${value.id}`;
    return JSON.stringify(value);
  }
  return String(value);
}

/** A record's fields flattened one line each (nested records as `a.b`, except owner references). */
export function flatten(record: Json, prefix = ''): [string, string][] {
  return Object.entries(record).flatMap(([key, value]): [string, string][] => {
    const name = `${prefix}${key}`;
    const isOwner = isRecord(value) && cell(value) !== JSON.stringify(value);
    if (isRecord(value) && !isOwner) return flatten(value, `${name}.`);
    return [[name, cell(value)]];
  });
}

/** Aligned columns under a header; `columns` picks and orders them (every flattened field by default). */
export function table(rows: Json[], columns?: string[]): string {
  if (rows.length === 0) return '(none)';
  const flat = rows.map((row) => new Map(flatten(row)));
  const names = columns ?? [...new Set(flat.flatMap((row) => [...row.keys()]))];
  const cells = [names.map((n) => n.toUpperCase()), ...flat.map((row) => names.map((n) => row.get(n) ?? ''))];
  const widths = names.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) => line.map((c, i) => (i === line.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** `field  value` lines of one record. */
export function record(value: Json): string {
  const lines = flatten(value);
  const width = Math.max(0, ...lines.map(([name]) => name.length));
  return lines.map(([name, v]) => `${name.padEnd(width)}  ${v}`).join('\n');
}
