// Where a bench's own process spends a measured window: V8's sampling profiler over the inspector
// (the same profile `node --cpu-prof` writes, but of the window only, not the set-up), its samples
// summed by where the code lives — a package, a folder of this repository, a Node module, idle,
// garbage collection. Only this process's main thread is seen: a PostgreSQL or Redis server's
// work is not in it, though the time this process waits for them shows as idle.
import type { Profiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import { repoRoot } from '../../services/kit/paths.js';

export interface ProfileShare {
  where: string;
  share: number;
}

/** Where one call frame's code lives. */
function placeOf(frame: Profiler.ProfileNode['callFrame']): string {
  const { functionName, url } = frame;
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return '(program: V8 and native, unattributed)';
  if (!url) return `native ${functionName || '(anonymous)'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.slice('node:'.length).replace(/^internal\//, '').split('/')[0]}`;
  const path = url.replace(/^file:\/\//, '').replace(`${repoRoot}/`, '').split('/');
  return path.length > 2 ? `${path[0]}/${path[1]}/` : path.join('/');
}

/** Shares of the profile's samples by place, largest first; past the `most` largest, or under `min`, summed as "other". */
export function summarize(profile: Profiler.Profile, min = 0.02, most = 10): ProfileShare[] {
  const placeById = new Map(profile.nodes.map((n) => [n.id, placeOf(n.callFrame)]));
  const counts = new Map<string, number>();
  for (const id of profile.samples ?? []) {
    const where = placeById.get(id) ?? 'unknown';
    counts.set(where, (counts.get(where) ?? 0) + 1);
  }
  const total = profile.samples?.length ?? 0;
  const shares = [...counts].map(([where, n]) => ({ where, share: total ? n / total : 0 })).sort((a, b) => b.share - a.share);
  const kept = shares.filter((s) => s.share >= min).slice(0, most);
  const rest = shares.slice(kept.length).reduce((sum, s) => sum + s.share, 0);
  return rest > 0 ? [...kept, { where: 'other', share: rest }] : kept;
}

/** Runs `work` under the sampling profiler: its result and the window's profile. */
export async function profiled<T>(work: () => Promise<T>): Promise<{ result: T; profile: Profiler.Profile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    // The profiler is stopped whether the work succeeds or not; then its error is the answer.
    const outcome = await work().then((value) => ({ value }), (error: unknown) => ({ error }));
    const { profile } = await session.post('Profiler.stop');
    if ('error' in outcome) throw outcome.error;
    return { result: outcome.value, profile };
  } finally {
    session.disconnect();
  }
}

/** "idle 62%, node:net 9%, …" */
export function sharesLine(shares: ProfileShare[]): string {
  return shares.map((s) => `${s.where} ${Math.round(s.share * 100)}%`).join(', ');
}
