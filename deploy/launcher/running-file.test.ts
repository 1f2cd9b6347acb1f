// DATA_DIR/running.json: written whole, found while its process runs, told apart when its process
// is gone, and removed by its own process only.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRunningSystem, removeRunningFile, writeRunningFile, type RunningRecord } from './running-file.js';

const listening = { admin: 'http://127.0.0.1:9', settings: 'http://127.0.0.1:8', grpc: { identity: '127.0.0.1:7' } };
const recordOf = (pid: number): RunningRecord => ({ pid, startedAt: '2026-01-01T00:00:00.000Z', listening });

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('running.json', () => {
  it('is found while its process runs, and removed by it (no temporary file left)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'en-running-'));
    expect(findRunningSystem(dir)).toEqual({ state: 'none' });
    writeRunningFile(dir, recordOf(process.pid));
    expect(readdirSync(dir)).toEqual(['running.json']);
    expect(findRunningSystem(dir)).toEqual({ state: 'running', record: recordOf(process.pid) });
    removeRunningFile(dir, process.pid);
    expect(existsSync(join(dir, 'running.json'))).toBe(false);
    removeRunningFile(dir, process.pid); // nothing left to remove: no error
  });

  it('names a process that is gone as stale', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'en-running-'));
    const pid = await deadPid();
    writeRunningFile(dir, recordOf(pid));
    expect(findRunningSystem(dir)).toEqual({ state: 'stale', pid });
  });

  it('is left alone by another process when a newer start replaced it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'en-running-'));
    writeRunningFile(dir, recordOf(process.pid));
    removeRunningFile(dir, process.pid + 1_000_000);
    expect(findRunningSystem(dir).state).toBe('running');
  });

  it('reads an unreadable or foreign file as nothing running, and an in-memory store has none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'en-running-'));
    writeFileSync(join(dir, 'running.json'), '{not json');
    expect(findRunningSystem(dir)).toEqual({ state: 'none' });
    writeFileSync(join(dir, 'running.json'), JSON.stringify({ pid: 'x' }));
    expect(findRunningSystem(dir)).toEqual({ state: 'none' });
    writeRunningFile('memory://', recordOf(process.pid));
    expect(findRunningSystem('memory://')).toEqual({ state: 'none' });
  });
});
