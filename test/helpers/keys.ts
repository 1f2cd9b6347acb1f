// Well-formed key secrets for seed files, made with the real format's checksum.
import { checksumOf, generateSecret } from '../../services/identity/api-key-secret.js';

export const liveKey = () => generateSecret('live');
export const testKey = () => generateSecret('test');

/** A well-formed test key secret that starts with `start` (e.g. two keys sharing a display prefix). */
export function testKeyStartingWith(start: string): string {
  const body = `${start}${testKey().slice(start.length, -6)}`;
  return body + checksumOf(body);
}
