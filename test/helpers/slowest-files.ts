// Prints the slowest test files of a run from its JUnit report (vitest's `junit` reporter writes one
// <testsuite> per file, its `time` the file's wall time in seconds), so a CI log says where the
// suite's time went. Usage: tsx test/helpers/slowest-files.ts [report.xml] [count].
import { readFileSync } from 'node:fs';

export interface FileDuration {
  file: string;
  seconds: number;
  tests: number;
}

/** Per-file durations of a JUnit report, slowest first. */
export function fileDurations(xml: string): FileDuration[] {
  const files: FileDuration[] = [];
  for (const match of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
    const attributes = match[1]!;
    const attribute = (name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
    const file = attribute('name');
    const seconds = Number(attribute('time'));
    if (!file || !Number.isFinite(seconds)) continue;
    files.push({ file, seconds, tests: Number(attribute('tests') ?? 0) });
  }
  return files.sort((a, b) => b.seconds - a.seconds);
}

export function formatSlowest(files: FileDuration[], count: number): string {
  const total = files.reduce((sum, f) => sum + f.seconds, 0);
  const lines = files.slice(0, count).map((f) => `${f.seconds.toFixed(1).padStart(8)} s  ${String(f.tests).padStart(4)} tests  ${f.file}`);
  return [`The ${Math.min(count, files.length)} slowest of ${files.length} test files (${total.toFixed(0)} s summed over files):`, ...lines].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2] ?? 'test-results/junit.xml';
  const count = Number(process.argv[3] ?? 15);
  try {
    console.log(formatSlowest(fileDurations(readFileSync(path, 'utf8')), count));
  } catch (error) {
    console.log(`no per-file durations: ${(error as Error).message}`);
  }
}
