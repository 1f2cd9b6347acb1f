// Parsers of the admin CLI's arguments and option values. Each refuses a bad value with a message
// commander prints as `error: … argument '…' is invalid. <message>`, exit 1, before any call.
import { InvalidArgumentError } from 'commander';
import { ownerTypes } from '../../services/kit/enums.js';
import type { OwnerRef } from '../../proto/gen/expertnet/common/v1/common.js';

/** `user:ID` or `organization:ID`, as the wallet owner or billing owner it names. */
export function ownerRef(value: string): OwnerRef {
  const match = /^(user|organization):(.+)$/.exec(value);
  if (!match) throw new InvalidArgumentError('OWNER must be user:ID or organization:ID');
  return { type: ownerTypes.toEnum(match[1] as 'user' | 'organization'), id: match[2]! };
}

/** A comma-separated list (`a,b`); blanks are dropped. */
export function commaList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

export function wholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

export function positive(value: string): number {
  const n = wholeNumber(value);
  if (n < 1) throw new InvalidArgumentError('must be at least 1');
  return n;
}

/** A list length for `--limit`: 1 to 1000. */
export function limit(value: string): number {
  const n = positive(value);
  if (n > 1000) throw new InvalidArgumentError('must be at most 1000');
  return n;
}

/** One of the given words. */
export function oneOf<T extends string>(...words: T[]) {
  return (value: string): T => {
    if (!(words as string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${words.join(', ')}`);
    return value as T;
  };
}
