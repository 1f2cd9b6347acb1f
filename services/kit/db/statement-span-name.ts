// The name of a PostgreSQL span: its operation and the table it works on (`SELECT
// identity.api_keys`, `INSERT billing.ledger_entries`), as OpenTelemetry's database conventions
// name a span. The pg instrumentation would name it after the prepared statement's name
// (`pg.query:en_<hash>`: prepared-statements.ts), which tells a reader of a trace nothing.
const OPERATIONS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'SET', 'LOCK', 'CREATE', 'ALTER', 'DROP'];
/** The first table named after FROM, INTO, UPDATE or JOIN (schema-qualified when it is). */
const TABLE = /\b(?:from|into|update|join|lock\s+table)\s+((?:"?[a-z_][\w$]*"?\.)?"?[a-z_][\w$]*"?)/i;
/** The statement a WITH query ends in: the first data-changing keyword after the CTEs, else SELECT. */
const MAIN_OF_WITH = /\)\s*(insert|update|delete|select)\b/i;

export function statementSpanName(sql: string): string {
  const text = sql.trim();
  const first = (text.match(/^[a-z]+/i)?.[0] ?? '').toUpperCase();
  let operation = OPERATIONS.includes(first) ? first : 'QUERY';
  if (operation === 'WITH') operation = (text.match(MAIN_OF_WITH)?.[1] ?? 'SELECT').toUpperCase();
  const table = TABLE.exec(text)?.[1]?.replaceAll('"', '');
  return table ? `${operation} ${table}` : operation;
}
