// DATA_DIR/running.json: where a running one-process system (`npm start`) can be reached, so the
// admin CLI started from the same data folder finds it without being given its ports (any of them
// may have been 0). The process writes it once it listens and removes it when it stops cleanly; a
// file left by a process that died is recognised by its pid, which no longer runs.
//
//   {"pid":4242,"startedAt":"…","listening":{"admin":…,"rest":…,"settings":…,"grpc":{…}},"settingsPublicUrl":"http://127.0.0.1:41234"}
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListenReport } from './listen-report.js';

export const RUNNING_FILE = 'running.json';

export interface RunningRecord {
  /** The process serving the system. */
  pid: number;
  startedAt: string;
  /** The ports it bound, as its LISTENING line reported them. */
  listening: ListenReport;
  /** Its gRPC is mutual TLS (deploy/launcher/grpc-tls.ts): the admin CLI must present a certificate. */
  grpcTls?: boolean;
  /** Where sign-in links point: SETTINGS_PUBLIC_URL, else the settings address it bound. */
  settingsPublicUrl?: string;
}

export type RunningLookup =
  | { state: 'running'; record: RunningRecord }
  /** No file: nothing was started here, or it stopped cleanly. */
  | { state: 'none' }
  /** A file whose process is gone (killed, crashed): nothing to reach. */
  | { state: 'stale'; pid: number };

/** The file's path; undefined for an in-memory store (`memory://`), which has no folder. */
export function runningFilePath(dataDir: string): string | undefined {
  return dataDir.startsWith('memory://') ? undefined : join(dataDir, RUNNING_FILE);
}

/** Written to a temporary file and renamed over the old one, so a reader never sees half of it. */
export function writeRunningFile(dataDir: string, record: RunningRecord): void {
  const file = runningFilePath(dataDir);
  if (!file) return;
  mkdirSync(dataDir, { recursive: true });
  const temporary = `${file}.${record.pid}.tmp`;
  // 'w' would follow a link planted at the temporary name in a folder others may write.
  rmSync(temporary, { force: true });
  writeFileSync(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temporary, file);
}

/**
 * Removes the file if it is still this process's (another start may have replaced it since).
 * Never throws: a shutdown goes on whatever happens to the file (a file left behind names a pid
 * that is gone, which readers recognise).
 */
export function removeRunningFile(dataDir: string, pid: number): void {
  const file = runningFilePath(dataDir);
  if (!file) return;
  try {
    const found = findRunningSystem(dataDir);
    if (found.state === 'running' && found.record.pid !== pid) return;
    rmSync(file, { force: true });
  } catch {
    // unreadable or not removable: left for the pid check
  }
}

export function findRunningSystem(dataDir: string): RunningLookup {
  const file = runningFilePath(dataDir);
  if (!file) return { state: 'none' };
  let record: RunningRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as RunningRecord;
  } catch (error) {
    // Missing, or unreadable (not written by this code): either way nothing can be reached through it.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return { state: 'none' };
    throw error;
  }
  if (!Number.isInteger(record.pid) || typeof record.listening?.grpc !== 'object') return { state: 'none' };
  return processRuns(record.pid) ? { state: 'running', record } : { state: 'stale', pid: record.pid };
}

/** Signal 0 checks the process exists without touching it; EPERM: it exists under another user. */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
