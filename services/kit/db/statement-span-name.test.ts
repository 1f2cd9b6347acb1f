import { describe, expect, it } from 'vitest';
import { statementSpanName } from './statement-span-name.js';

describe('statementSpanName', () => {
  it.each([
    ['SELECT id, name FROM identity.api_keys WHERE hash = $1', 'SELECT identity.api_keys'],
    ['  insert into billing.ledger_entries (owner, amount) values ($1, $2) on conflict do nothing', 'INSERT billing.ledger_entries'],
    ['UPDATE "search".jobs SET state = $1 WHERE id = $2', 'UPDATE search.jobs'],
    ['DELETE FROM communities.members WHERE id = $1', 'DELETE communities.members'],
    ['WITH picked AS (SELECT id FROM search.jobs LIMIT 1) UPDATE search.jobs j SET lease = $1 FROM picked WHERE j.id = picked.id', 'UPDATE search.jobs'],
    ['SELECT 1 AS ok', 'SELECT'],
    ['BEGIN', 'BEGIN'],
    ['vacuum', 'QUERY'],
  ])('%s → %s', (sql, name) => {
    expect(statementSpanName(sql)).toBe(name);
  });
});
