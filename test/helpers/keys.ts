// Well-formed key secrets for seed files, made with the real format's checksum.
import { generateSecret } from '../../services/identity/api-key-secret.js';

export const liveKey = () => generateSecret('live');
export const testKey = () => generateSecret('test');
