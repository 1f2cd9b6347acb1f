// Records the OpenAPI examples from a real run: starts the whole system in this process as
// `npm start` does (one process, every port 0, a throwaway embedded store that gets the demo data
// on its first start, enrichment providers off so nothing leaves the machine), sends each recipe's
// request with the demo key, and keeps request and answer — normalised (normalise.ts) so the
// result is the same on every run.
import { ENDPOINTS } from '../../gateway/core/contract/endpoints.js';
import type { Endpoint } from '../../gateway/core/contract/schemas.js';
import type { ExampleExchange, ExamplesFile } from '../../gateway/rest/openapi/examples.js';
import { GRPC_ADDRESS_VARIABLES, loadConfig, SERVICE_ROLES } from '../../services/kit/config.js';
import { createLogger } from '../../services/kit/logger.js';
import { startSystem } from '../launcher/runtime.js';
import { normaliseRun } from './normalise.js';
import type { Body, Recipe, RecordedRequest, Remembered } from './recipe.js';
import { RECIPES } from './recipes.js';

const CAPTURE_ENV: Record<string, string> = {
  PORT: '0',
  MCP_PORT: '0',
  ADMIN_PORT: '0',
  ...Object.fromEntries(SERVICE_ROLES.map((s) => [GRPC_ADDRESS_VARIABLES[s], '127.0.0.1:0'])),
  DATA_DIR: 'memory://',
  LOG_LEVEL: 'error',
  ORCID_API_URL: 'off',
  OPENALEX_API_URL: 'off',
  // Webhook deliveries are recorded but not sent: nothing leaves the machine, and the delivery
  // log's examples do not depend on how far an attempt got.
  WEBHOOK_DELIVERY: 'off',
};

const POLL_LIMIT_MS = 120_000;

/** The endpoints no recipe records (each must have at least one). */
export function endpointsWithoutRecipe(recipes: readonly Recipe[] = RECIPES): string[] {
  return ENDPOINTS.filter((e) => !recipes.some((r) => r.operationId === e.operationId)).map((e) => `${e.operationId} (${e.method} ${e.path})`);
}

function endpointOf(recipe: Recipe): Endpoint {
  const endpoint = ENDPOINTS.find((e) => e.operationId === recipe.operationId);
  if (!endpoint) throw new Error(`recipe ${recipe.operationId}/${recipe.name}: no endpoint has this operationId`);
  return endpoint;
}

function urlOf(base: string, endpoint: Endpoint, request: RecordedRequest): string {
  const path = endpoint.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = request.params?.[name];
    if (value === undefined) throw new Error(`${endpoint.operationId}: path parameter ${name} missing`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(request.query ?? {}).toString();
  return `${base}${path}${query ? `?${query}` : ''}`;
}

async function send(base: string, secret: string, recipe: Recipe, request: RecordedRequest) {
  const endpoint = endpointOf(recipe);
  const headers: Record<string, string> = {
    authorization: `Bearer ${secret}`,
    'x-request-id': `req_${recipe.operationId}_${recipe.name}`,
    ...request.headers,
  };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(urlOf(base, endpoint, request), {
    method: endpoint.method,
    headers,
    ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
  });
  return { status: res.status, location: res.headers.get('location') ?? undefined, body: (await res.json()) as Body };
}

async function record(base: string, secret: string, recipe: Recipe, remembered: Remembered): Promise<ExampleExchange> {
  const request = recipe.request(remembered);
  const deadline = Date.now() + POLL_LIMIT_MS;
  let answer = await send(base, secret, recipe, request);
  while (recipe.until && answer.status === recipe.status && !recipe.until(answer.body)) {
    if (Date.now() > deadline) throw new Error(`${recipe.operationId}/${recipe.name}: still not final after ${POLL_LIMIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
    answer = await send(base, secret, recipe, request);
  }
  if (answer.status !== recipe.status) {
    throw new Error(`${recipe.operationId}/${recipe.name}: expected ${recipe.status}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
  recipe.remember?.(answer.body, remembered);
  return {
    name: recipe.name,
    summary: recipe.summary,
    request: JSON.parse(JSON.stringify(request)) as ExampleExchange['request'],
    response: {
      status: answer.status,
      ...(answer.location !== undefined && { location: answer.location }),
      body: recipe.abridge ? recipe.abridge(answer.body) : answer.body,
    },
  };
}

/** Runs every recipe against a fresh system and returns the normalised examples, by operationId. */
export async function captureExamples(recipes: readonly Recipe[] = RECIPES): Promise<ExamplesFile> {
  const missing = endpointsWithoutRecipe(recipes);
  if (missing.length > 0) throw new Error(`no recipe records an example of: ${missing.join(', ')} (add one in deploy/examples/recipes.ts)`);
  const startedAt = Date.now();
  const config = loadConfig(CAPTURE_ENV);
  const system = await startSystem(config, createLogger(config.LOG_LEVEL));
  try {
    const secret = system.mintedKeys.key_demo;
    if (!secret) throw new Error('the demo data was not seeded: no demo key was minted');
    const remembered: Remembered = {};
    const file: ExamplesFile = {};
    for (const recipe of recipes) {
      const exchange = await record(system.restUrl!, secret, recipe, remembered);
      (file[recipe.operationId] ??= []).push(exchange);
    }
    // Operations in the order of the endpoint table, whatever order the recipes ran in.
    const ordered = Object.fromEntries(ENDPOINTS.flatMap((e) => (file[e.operationId] ? [[e.operationId, file[e.operationId]!]] : [])));
    return normaliseRun(ordered, startedAt);
  } finally {
    await system.stop();
  }
}
