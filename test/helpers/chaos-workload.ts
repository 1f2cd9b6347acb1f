// The traffic of the chaos suites (test/postgres/chaos-*.test.ts): bulk adds and enrichment runs
// sent with an Idempotency-Key, searches started with wait_seconds 0, and erasures — all at once,
// in loops, while processes are killed under them. Every request is recorded with what it got (a
// status, or a network error when the process died), so that afterwards the suite can finish what
// the crashes interrupted (settle) and check the stored state against what was asked.
import { bearer } from './http.js';

export interface Answer {
  /** HTTP status; 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  body: any;
  headers: Headers | undefined;
  /** Why no answer came (status 0). */
  error?: string;
}

/** A request sent with an Idempotency-Key. */
export interface KeyedCall {
  kind: 'add' | 'enrich';
  path: string;
  key: string;
  body: unknown;
  /** The last answer to this key. */
  answer: Answer;
  /** When the last answer without an outcome (network error, 5xx) came. */
  failedAt?: number;
  /** Set by settle(): from the first 409 to the last one seen for this key. */
  conflict?: { first: number; last: number; count: number };
  /** Set by settle(): each retry's status (or error) and how long it took, for the failure message. */
  retries?: string[];
}

export interface Person {
  profileId: string;
  /** A made-up word in the person's name, found nowhere else: what a search for them asks. */
  token: string;
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'ze', 'ta', 'vo', 'ni', 'pe', 'sa', 'du', 'fi'];

/** A distinct, pronounceable, made-up word for each number (so each person is findable by name). */
export function tokenFor(n: number): string {
  let word = '';
  for (let i = 0, v = n + SYLLABLES.length ** 3; i < 4; i++, v = Math.floor(v / SYLLABLES.length)) word += SYLLABLES[v % SYLLABLES.length];
  return word[0]!.toUpperCase() + word.slice(1);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request; a dead or dying process is an answer with status 0, never a throw. */
export async function send(baseUrl: string, secret: string, method: string, path: string, body?: unknown, key?: string): Promise<Answer> {
  const headers: Record<string, string> = { ...bearer(secret) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['idempotency-key'] = key;
  try {
    const res = await fetch(baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: 0, body: undefined, headers: undefined, error: `${(error as Error).name}${cause ? ` ${cause}` : ''}` };
  }
}

/** No outcome yet: the operation may or may not have run, and the key may still be claimed. */
export const unsettled = (a: Answer) => a.status === 0 || a.status >= 500;

export interface WorkloadOptions {
  /** The REST base URL to use now (it changes when the one-process mode restarts on a new port). */
  baseUrl(): string;
  secret: string;
  communityId: string;
  /** Tells this workload's keys and e-mail addresses from another's. */
  tag: string;
  /** People per bulk add. */
  batch?: number;
}

export class ChaosWorkload {
  readonly calls: KeyedCall[] = [];
  /** Everyone an add answered for, by profile id. */
  readonly people = new Map<string, Person>();
  /** Profile ids of the people an erasure was sent for, in order. */
  readonly erasures: string[] = [];
  readonly searchIds = new Set<string>();
  readonly runIds = new Set<string>();
  /**
   * Set while the process under test is known to be down (between its kill and its restart): the
   * loops wait instead of piling up requests no one can answer — as a client backing off would.
   * Requests in flight at the kill still get no answer.
   */
  down = false;
  private stopped = false;
  private loops: Promise<void>[] = [];
  private next = 0;

  constructor(private readonly options: WorkloadOptions) {}

  /** Starts the loops: adds followed by enrichment runs of the added people, searches, erasures. */
  start(): void {
    this.loops = [this.addLoop(), this.searchLoop(), this.eraseLoop()];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  /** Records what an answered add or enrichment start says (profile ids, run id). */
  learn(call: KeyedCall): void {
    const { answer } = call;
    if (call.kind === 'add' && answer.status === 200) {
      const members = (call.body as { members: { name: string }[] }).members;
      for (const r of answer.body.results as { index: number; profile_id: string | null }[]) {
        if (r.profile_id) this.people.set(r.profile_id, { profileId: r.profile_id, token: members[r.index]!.name.split(' ')[0]! });
      }
    }
    if (call.kind === 'enrich' && answer.status === 202) this.runIds.add(answer.body.run_id);
  }

  private async whileDown(): Promise<void> {
    while (this.down && !this.stopped) await sleep(100);
  }

  private async keyed(kind: KeyedCall['kind'], path: string, key: string, body: unknown): Promise<KeyedCall> {
    await this.whileDown();
    const answer = await send(this.options.baseUrl(), this.options.secret, 'POST', path, body, key);
    const call: KeyedCall = { kind, path, key, body, answer, ...(unsettled(answer) ? { failedAt: Date.now() } : {}) };
    this.calls.push(call);
    this.learn(call);
    return call;
  }

  private async addLoop(): Promise<void> {
    const { communityId, tag } = this.options;
    const size = this.options.batch ?? 4;
    while (!this.stopped) {
      const n = this.next++;
      const members = Array.from({ length: size }, (_, i) => ({
        email: `chaos-${tag}-${n}-${i}@example.org`,
        name: `${tokenFor(n * size + i)} Chaos`,
        headline: 'Structural biologist',
        bio: 'Protein folding and cryo-electron microscopy.',
      }));
      const add = await this.keyed('add', `/v1/communities/${communityId}/members`, `add-${tag}-${n}`, { members });
      if (add.answer.status === 200) {
        const ids = (add.answer.body.results as { profile_id: string | null }[]).flatMap((r) => (r.profile_id ? [r.profile_id] : []));
        await this.keyed('enrich', `/v1/communities/${communityId}/enrich`, `enrich-${tag}-${n}`, { depth: 'standard', profile_ids: ids });
      }
      await sleep(add.answer.status === 0 ? 300 : 100);
    }
  }

  private async searchLoop(): Promise<void> {
    const { communityId, secret } = this.options;
    while (!this.stopped) {
      await this.whileDown();
      const known = [...this.people.values()];
      const query = known.length > 0 ? `${known[Math.floor(Math.random() * known.length)]!.token} biologist` : 'structural biologist';
      const started = await send(this.options.baseUrl(), secret, 'POST', '/v1/search', { query, scope: 'community', community_id: communityId, wait_seconds: 0 });
      if (started.status === 200 || started.status === 202) this.searchIds.add(started.body.search_id);
      await sleep(started.status === 0 ? 300 : 400);
    }
  }

  /** Erases every third person added (the others stay, as the control group), one at a time. */
  private async eraseLoop(): Promise<void> {
    const { communityId, secret } = this.options;
    let seen = 0;
    while (!this.stopped) {
      const candidates = [...this.people.keys()];
      if (candidates.length > seen + 2) {
        const profileId = candidates[seen]!;
        seen += 3;
        await this.whileDown();
        this.erasures.push(profileId);
        await send(this.options.baseUrl(), secret, 'DELETE', `/v1/communities/${communityId}/members/${profileId}`);
      }
      await sleep(150);
    }
  }
}
