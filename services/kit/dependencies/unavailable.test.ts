import { describe, expect, it } from 'vitest';
import { asDependencyFailure, DependencyUnavailable, isDependencyUnavailable } from './unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('dependency unavailable: which failures mean "cannot answer now"', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a reset connection', withCode('ECONNRESET')],
    ['a unix socket with nothing behind it', withCode('ENOENT')],
    ['an admin shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting or stopping (57P03)', withCode('57P03', 'the database system is starting up')],
    ['too many connections (53300)', withCode('53300')],
    ['a connection exception (08006)', withCode('08006')],
    ['a database not accepting connections (55000)', withCode('55000', 'database "x" is not currently accepting connections')],
    ['the statement bound (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['pg: a lost connection', new Error('Connection terminated unexpectedly')],
    ['pg-pool: no connection in time', new Error('timeout exceeded when trying to connect')],
    ['ioredis: no answer in time', new Error('Command timed out')],
    ['ioredis: not connected', new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ['ioredis: closed', new Error('Connection is closed.')],
    ['every address refused', Object.assign(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), { code: undefined })],
    ['one already classified', new DependencyUnavailable('redis', new Error('Command timed out'))],
  ])('%s', (_name, error) => expect(isDependencyUnavailable(error)).toBe(true));

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['a cancelled statement that is not the bound', withCode('57014', 'canceling statement due to user request')],
    ['a 55000 of another kind', withCode('55000', 'cannot execute in a read-only transaction')],
    ['a Redis script error', new Error('ERR Error running script')],
    ['a plain bug', new TypeError('x is undefined')],
    ['not an error', 'text'],
  ])('not %s', (_name, error) => expect(isDependencyUnavailable(error)).toBe(false));

  it('wraps an outage with its cause and leaves any other failure as it is', () => {
    const cause = withCode('ECONNREFUSED');
    const wrapped = asDependencyFailure('database', cause);
    expect(wrapped).toBeInstanceOf(DependencyUnavailable);
    expect(wrapped).toMatchObject({ dependency: 'database', cause, message: 'database is unavailable' });
    const bug = withCode('23505');
    expect(asDependencyFailure('database', bug)).toBe(bug);
  });
});
