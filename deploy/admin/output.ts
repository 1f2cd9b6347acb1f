// How a command's result is printed: `--json` prints it as JSON for scripts (the API's names and
// values); otherwise for people — a table for each list, `field  value` lines for the rest — or
// the command's own rendering.
import type { Command } from 'commander';
import { record, table } from './table.js';

type Json = Record<string, unknown>;

export interface Rendering {
  /** Columns of the tables, by list field (`keys: ['id', 'prefix', …]`); every field otherwise. */
  columns?: Record<string, string[]>;
  /** A rendering of its own instead of the generic one. */
  human?: (result: Json) => string;
  /** The note under a list that --limit cut, when the command says how to go on. */
  more?: string;
}

const isRecordList = (value: unknown): value is Json[] =>
  Array.isArray(value) && value.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item));

/** Lists as tables under their name, the other fields as one record above them. */
export function humanOf(result: Json, rendering: Rendering = {}): string {
  if (rendering.human) return rendering.human(result) + more(result, rendering);
  // A list's page token is for scripts; people get a note when the list was cut.
  const { next_page_token: _token, ...fields } = result;
  const lists = Object.entries(fields).filter(([, v]) => isRecordList(v)) as [string, Json[]][];
  const rest = Object.fromEntries(Object.entries(fields).filter(([k]) => !lists.some(([name]) => name === k)));
  const parts: string[] = [];
  if (Object.keys(rest).length > 0) parts.push(record(rest));
  for (const [name, rows] of lists) {
    const heading = lists.length > 1 || parts.length > 0 ? `${name}:\n` : '';
    parts.push(heading + table(rows, rendering.columns?.[name]));
  }
  return parts.join('\n\n') + more(result, rendering);
}

/** The note under a list that --limit cut. */
function more(result: Json, rendering: Rendering): string {
  return result.next_page_token ? `\n${rendering.more ?? '(more follow: raise --limit to see them)'}` : '';
}

/** Adds the `--json` option every command that prints data has. */
export function withJson(command: Command): Command {
  return command.option('--json', 'print JSON for scripts (the API\'s field names and values)');
}

export function print(result: Json, options: { json?: boolean }, rendering?: Rendering): void {
  process.stdout.write(`${options.json ? JSON.stringify(result, null, 2) : humanOf(result, rendering)}\n`);
}
