import { describe, expect, it } from 'vitest';
import { checkSecret, checksumOf, displayPrefixOf, generateSecret, hashSecret } from './api-key-secret.js';

describe('API key secrets', () => {
  it('are svc_live_/svc_test_ + 43 base62 + a 6-char checksum: 58 characters', () => {
    for (const env of ['live', 'test'] as const) {
      const secret = generateSecret(env);
      expect(secret).toMatch(new RegExp(`^svc_${env}_[0-9A-Za-z]{49}$`));
      expect(secret).toHaveLength(58);
      expect(checkSecret(secret)).toBe(env);
    }
  });

  it('carry at least 32 random bytes (43 base62 characters ≈ 256 bits) and never repeat', () => {
    expect(43 * Math.log2(62)).toBeGreaterThanOrEqual(256);
    const seen = new Set(Array.from({ length: 500 }, () => generateSecret('live')));
    expect(seen.size).toBe(500);
  });

  it('compute the checksum as CRC-32 (zlib) of the body in base62, most significant first, 0-padded', () => {
    const body = `svc_live_${'0'.repeat(43)}`;
    const sum = checksumOf(body);
    expect(sum).toMatch(/^[0-9A-Za-z]{6}$/);
    expect(checkSecret(body + sum)).toBe('live');
    // Decoding the base62 digits gives back the CRC-32.
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const decoded = [...sum].reduce((n, c) => n * 62 + alphabet.indexOf(c), 0);
    expect(decoded).toBe(crc32Reference(body));
  });

  it('refuse any single-character typo, a wrong prefix, or a wrong length', () => {
    const secret = generateSecret('live');
    for (let i = 9; i < secret.length; i++) {
      const typo = secret.slice(0, i) + (secret[i] === 'a' ? 'b' : 'a') + secret.slice(i + 1);
      expect(checkSecret(typo), `typo at ${i}`).toBeUndefined();
    }
    expect(checkSecret(secret.replace('svc_live_', 'svc_prod_'))).toBeUndefined();
    expect(checkSecret(secret.slice(0, -1))).toBeUndefined();
    expect(checkSecret(`${secret}0`)).toBeUndefined();
    expect(checkSecret('')).toBeUndefined();
  });

  it('are stored as a keyed hash: the same secret under another pepper hashes differently', () => {
    const secret = generateSecret('test');
    expect(hashSecret(secret, 'a'.repeat(32))).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(secret, 'a'.repeat(32))).toBe(hashSecret(secret, 'a'.repeat(32)));
    expect(hashSecret(secret, 'a'.repeat(32))).not.toBe(hashSecret(secret, 'b'.repeat(32)));
  });

  it('display only the prefix plus six characters', () => {
    const secret = generateSecret('live');
    expect(displayPrefixOf(secret)).toBe(secret.slice(0, 15));
  });
});

/** Bitwise CRC-32 (IEEE 802.3), written independently of zlib to check the checksum. */
function crc32Reference(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
