// `npm run examples`: records the OpenAPI examples from a fresh run of the system (capture.ts)
// into gateway/rest/openapi/examples.json; the npm script then rebuilds docs/openapi.json with
// them. Commit both. gateway/rest/openapi/examples.test.ts checks the file against the contract.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../services/kit/paths.js';
import { captureExamples } from './capture.js';

export const EXAMPLES_FILE = join(repoRoot, 'gateway', 'rest', 'openapi', 'examples.json');

const examples = await captureExamples();
writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 2)}\n`);
console.log(`wrote ${EXAMPLES_FILE} (${Object.values(examples).flat().length} examples of ${Object.keys(examples).length} operations)`);
process.exit(0);
