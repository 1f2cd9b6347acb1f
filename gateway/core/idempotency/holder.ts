// The process holding an idempotency claim, and whether a holder is known to be dead. A claim
// records its holder; a request that meets an in-flight claim whose holder is dead takes it over at
// once (docs/IDEMPOTENCY.md, "Crashes"), instead of answering 409 until the lease runs out.
//
// "Known dead" is only ever decided for a holder on this host in this process's pid namespace
// (Linux: /proc/self/ns/pid), where a pid means the same process for both: there, no process with
// the holder's pid, or the holder's pid being this process's own in a later life (a restarted
// container's pid 1), is proof. Anywhere else nothing is known and the lease decides.
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

export interface Holder {
  host: string;
  /** The pid namespace (e.g. `pid:[4026531836]`); empty where it cannot be read. */
  pidNamespace: string;
  pid: number;
  /** Random per process life: tells a pid's later life apart from the holder's. */
  instance: string;
}

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** This process, for the claims it makes. */
export const THIS_PROCESS: Holder = Object.freeze({ host: hostname(), pidNamespace: pidNamespace(), pid: process.pid, instance: randomUUID() });

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Whether the holder of a claim is certainly no longer running (false when it cannot be known). */
export function isKnownDead(holder: Partial<Holder>, self: Holder = THIS_PROCESS): boolean {
  if (!holder.host || holder.host !== self.host) return false;
  if (!holder.pidNamespace || holder.pidNamespace !== self.pidNamespace) return false;
  if (holder.pid === undefined || holder.pid === null || !holder.instance || holder.instance === self.instance) return false;
  if (holder.pid === self.pid) return true;
  return holder.pid > 0 && !processExists(holder.pid);
}
