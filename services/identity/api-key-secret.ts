// The API key secret format (docs/API-KEYS.md): `svc_live_` or `svc_test_`, 43 random base62
// characters (256 bits), then a 6-character base62 CRC-32 of everything before it. The checksum lets
// the edge refuse a mistyped or invented key without a lookup and lets secret scanners recognise ours.
import { createHmac, randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export type KeyEnvironmentName = 'live' | 'test';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const SECRET_PATTERN = /^svc_(live|test)_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/;
/** Characters of the random part kept in the display prefix. */
const DISPLAY_CHARS = 6;

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

export function checksumOf(body: string): string {
  return base62(crc32(body) >>> 0, CHECKSUM_LENGTH);
}

export function generateSecret(environment: KeyEnvironmentName): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(62)];
  const body = `svc_${environment}_${random}`;
  return body + checksumOf(body);
}

/** The environment of a well-formed secret with a matching checksum, else undefined. */
export function checkSecret(secret: string): KeyEnvironmentName | undefined {
  const match = SECRET_PATTERN.exec(secret);
  if (!match) return undefined;
  const body = secret.slice(0, secret.length - CHECKSUM_LENGTH);
  return checksumOf(body) === match[3] ? (match[1] as KeyEnvironmentName) : undefined;
}

/** The stored lookup hash: HMAC-SHA256 keyed with the server pepper, so a leaked table is useless alone. */
export function hashSecret(secret: string, pepper: string): string {
  return createHmac('sha256', pepper).update(secret).digest('hex');
}

export function displayPrefixOf(secret: string): string {
  return secret.slice(0, 'svc_live_'.length + DISPLAY_CHARS);
}
