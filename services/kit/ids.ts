// Ids of records: opaque strings chosen by seed files and operators, or generated here.
import { randomBytes } from 'node:crypto';
import { domainError } from './grpc/errors.js';

const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** A caller-chosen id must be 1-128 characters of [A-Za-z0-9_.:-]; otherwise invalid_request. */
export function requireId(value: string, field: string): string {
  if (!ID_PATTERN.test(value)) throw domainError('invalid_request', `${field} must be 1-128 of [A-Za-z0-9_.:-]`);
  return value;
}

/** A fresh id with a type prefix, e.g. key_3nX…: 96 random bits. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
