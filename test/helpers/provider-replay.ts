// A local stand-in for the enrichment providers: a real HTTP server on 127.0.0.1 that answers as
// the ORCID public API v3.0, OpenAlex and an OpenAI-compatible chat completions endpoint do, from
// recorded documents in test/fixtures/providers/ (docs/ENRICHMENT-PROVIDERS.md says what each holds).
// Anything it has no document for gets the provider's own "nothing" answer: ORCID's 404, OpenAlex's
// empty result list. It can slow every answer down (latencyMs) and fail the first requests of each
// path with 503 (failFirst) to exercise timeouts and retries.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../../services/kit/paths.js';

const FIXTURES = join(repoRoot, 'test', 'fixtures', 'providers');

/** The people the recorded documents are about, for tests to build matching profiles. */
export const FIXTURE_PEOPLE = {
  /**
   * A valid ORCID iD with employments (3) and works (6) on ORCID; found on OpenAlex by that iD; her
   * recent works are co-authored with `coAuthor` (2 works, matched by ORCID iD) and `byName` (2
   * works, no ORCID iD in the authorship: matched by name).
   */
  withOrcid: {
    name: 'Maria Lindqvist',
    orcid: '0000-0002-1873-4454',
    organization: 'Karolinska Institutet',
    location: 'Stockholm, Sweden',
    openAlexId: 'https://openalex.org/A5014738291',
    orcidEmployments: 3,
    orcidWorks: 6,
  },
  /** A valid ORCID iD that ORCID answers 404 for; unknown to OpenAlex too. */
  orcidNotFound: { name: 'Samuel Reyes', orcid: '0000-0003-4109-6283' },
  /** No ORCID iD; found by OpenAlex name search at ETH Zurich, where a namesake elsewhere is listed first. */
  byName: { name: 'Priya Raman', organization: 'ETH Zürich', openAlexId: 'https://openalex.org/A5090317726', namesakeId: 'https://openalex.org/A5003318870' },
  /** Co-author of `withOrcid`, with an ORCID iD on the authorships (no ORCID record of their own). */
  coAuthor: { name: 'Tomás Okafor', orcid: '0000-0001-9552-3717' },
  /** Nobody any provider knows. */
  unknown: { name: 'Quentin Marlowe-Abara' },
} as const;

/** The content of the recorded chat completion. */
export const FIXTURE_SUMMARY: string = json('openai/chat-completion.json').choices[0].message.content;

export interface RecordedRequest {
  method: string;
  /** The request target: path and query string. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface ProviderReplay {
  /** ORCID public API v3.0 base URL. */
  orcidUrl: string;
  /** OpenAlex API base URL. */
  openAlexUrl: string;
  /** OpenAI-compatible API base URL (…/chat/completions is appended by clients). */
  summaryUrl: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface ProviderReplayOptions {
  /** Delays each answer by this many milliseconds. */
  latencyMs?: number;
  /** Answers 503 to the first N requests of each path (path and query string). */
  failFirst?: number;
  /** Sent as Retry-After (seconds) with those 503 answers. */
  retryAfterSeconds?: number;
  /** Answers nothing before this settles: a suite holds a worker inside its provider calls. */
  hold?: Promise<void>;
}

function json(path: string): any {
  return JSON.parse(readFileSync(join(FIXTURES, path), 'utf8'));
}

/** A recorded document, or undefined when there is none for this request. */
function recorded(path: string): unknown {
  try {
    return json(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const slug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

type Answer = { status: number; body: unknown };

/** GET /orcid/v3.0/{iD}/employments|works */
function orcid(rest: string): Answer {
  const match = /^\/v3\.0\/(\d{4}-\d{4}-\d{4}-\d{3}[\dX])\/(employments|works)$/.exec(rest);
  const document = match ? recorded(`orcid/${match[1]}/${match[2]}.json`) : undefined;
  return document ? { status: 200, body: document } : { status: 404, body: json('orcid/not-found.json') };
}

/** GET /openalex/authors?filter=orcid:… | ?search=…, GET /openalex/works?filter=author.id:… */
function openAlex(rest: string, query: URLSearchParams): Answer {
  const filter = query.get('filter') ?? '';
  let document: unknown;
  if (rest === '/authors' && filter.startsWith('orcid:')) document = recorded(`openalex/authors/orcid-${filter.slice('orcid:'.length)}.json`);
  else if (rest === '/authors' && query.get('search')) document = recorded(`openalex/authors/search-${slug(query.get('search')!)}.json`);
  else if (rest === '/works' && filter.startsWith('author.id:')) document = recorded(`openalex/works/author-${filter.slice('author.id:'.length)}.json`);
  else if (rest !== '/authors' && rest !== '/works') return { status: 404, body: { error: 'Not found', message: `${rest} is not an endpoint` } };
  return { status: 200, body: document ?? json('openalex/empty-list.json') };
}

/** POST /openai/v1/chat/completions (a bearer key is required, as by the real API). */
function chat(rest: string, req: IncomingMessage, body: string): Answer {
  if (rest !== '/v1/chat/completions' || req.method !== 'POST') return { status: 404, body: { error: { message: 'Unknown request URL', type: 'invalid_request_error' } } };
  if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) return { status: 401, body: json('openai/unauthorized.json') };
  const completion = json('openai/chat-completion.json');
  completion.model = (JSON.parse(body || '{}') as { model?: string }).model ?? completion.model;
  return { status: 200, body: completion };
}

function answer(req: IncomingMessage, url: URL, body: string): Answer {
  const [, provider, rest = ''] = /^\/(orcid|openalex|openai)(\/.*)?$/.exec(url.pathname) ?? [];
  if (provider === 'orcid' && req.method === 'GET') return orcid(rest);
  if (provider === 'openalex' && req.method === 'GET') return openAlex(rest, url.searchParams);
  if (provider === 'openai') return chat(rest, req, body);
  return { status: 404, body: { error: 'not a replayed provider path' } };
}

export async function startProviderReplay(options: ProviderReplayOptions = {}): Promise<ProviderReplay> {
  const requests: RecordedRequest[] = [];
  const seen = new Map<string, number>();

  const send = (res: ServerResponse, { status, body }: Answer, headers: Record<string, string> = {}) => {
    if (res.destroyed) return; // the client gave up (timeout, abort)
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = req.url ?? '/';
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      requests.push({ method: req.method ?? 'GET', path: target, headers, ...(body ? { body } : {}), at: Date.now() });
      const count = (seen.get(target) ?? 0) + 1;
      seen.set(target, count);
      const reply = () => {
        if (count <= (options.failFirst ?? 0)) {
          const retryAfter = options.retryAfterSeconds !== undefined ? { 'retry-after': String(options.retryAfterSeconds) } : undefined;
          send(res, { status: 503, body: { error: 'Service Unavailable', message: 'replayed failure' } }, retryAfter);
        } else send(res, answer(req, new URL(target, 'http://replay'), body));
      };
      const delayed = () => (options.latencyMs ? void setTimeout(reply, options.latencyMs) : reply());
      if (options.hold) void options.hold.then(delayed, delayed);
      else delayed();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    orcidUrl: `${base}/orcid/v3.0`,
    openAlexUrl: `${base}/openalex`,
    summaryUrl: `${base}/openai/v1`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** The requests that name this person (path, query or body, decoded): what a provider was asked about them. */
export function requestsNaming(requests: RecordedRequest[], name: string): RecordedRequest[] {
  // "Researcher 1" must not match "Researcher 12".
  const pattern = new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`);
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return requests.filter((r) => pattern.test(decode(r.path)) || pattern.test(r.body ?? ''));
}
