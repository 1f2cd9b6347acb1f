// `npm run openapi`: regenerates docs/openapi.json from the endpoint contract. Commit the result;
// gateway/rest/openapi/openapi.test.ts fails while the committed file differs from a fresh build.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serializeOpenApiDocument } from './build-openapi.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

writeFileSync(OPENAPI_FILE, serializeOpenApiDocument());
console.log(`wrote ${OPENAPI_FILE}`);
