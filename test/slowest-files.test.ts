import { describe, expect, it } from 'vitest';
import { fileDurations, formatSlowest } from './helpers/slowest-files.js';

const report = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="5" failures="0" errors="0" time="30.5">
    <testsuite name="test/a.test.ts" timestamp="2026-12-07T15:00:00.000Z" hostname="h" tests="2" failures="0" errors="0" skipped="0" time="1.25">
        <testcase classname="test/a.test.ts" name="one" time="0.5"></testcase>
    </testsuite>
    <testsuite name="test/postgres/b.test.ts" timestamp="2026-12-07T15:00:00.000Z" hostname="h" tests="3" failures="0" errors="0" skipped="0" time="29.25">
    </testsuite>
</testsuites>`;

describe('the slowest test files of a JUnit report', () => {
  it('reads one duration per <testsuite> (file), slowest first, ignoring the <testsuites> total', () => {
    expect(fileDurations(report)).toEqual([
      { file: 'test/postgres/b.test.ts', seconds: 29.25, tests: 3 },
      { file: 'test/a.test.ts', seconds: 1.25, tests: 2 },
    ]);
  });

  it('prints only as many files as asked, with the summed time of all', () => {
    const printed = formatSlowest(fileDurations(report), 1).split('\n');
    expect(printed[0]).toBe('The 1 slowest of 2 test files (31 s summed over files):');
    expect(printed).toHaveLength(2);
    expect(printed[1]).toContain('29.3 s');
    expect(printed[1]).toContain('test/postgres/b.test.ts');
  });
});
