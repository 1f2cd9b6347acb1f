import { describe, expect, it } from 'vitest';
import { RUN_END, RUN_START, withLatestRun } from './bench/benchmarks-doc.js';

describe('docs/BENCHMARKS.md across bench runs', () => {
  const header = '# Benchmarks\n\nHow they are measured.';

  it('starts a missing document with the header and the run between the markers', () => {
    expect(withLatestRun(undefined, header, '## Run A\n\nfigures A')).toBe(`# Benchmarks\n\nHow they are measured.\n\n${RUN_START}\n\n## Run A\n\nfigures A\n\n${RUN_END}\n`);
  });

  it('replaces only the latest run, keeping the hand-written sections before and after it', () => {
    const first = withLatestRun(undefined, header, '## Run A\n\nfigures A');
    const edited = first.replace('How they are measured.', 'How they are measured.\n\n## Where the time goes\n\nkept') + '\n## Notes\n\nkept too\n';
    const next = withLatestRun(edited, header, '## Run B\n\nfigures B');
    expect(next).toContain('## Where the time goes\n\nkept');
    expect(next).toContain('## Notes\n\nkept too');
    expect(next).toContain('## Run B\n\nfigures B');
    expect(next).not.toContain('figures A');
    expect(next.split(RUN_START)).toHaveLength(2);
  });

  it('adds the markers and the run at the end of a document written before them', () => {
    const next = withLatestRun('# Benchmarks\n\n## Older run\n\nold figures\n', header, '## Run B');
    expect(next).toBe(`# Benchmarks\n\n## Older run\n\nold figures\n\n${RUN_START}\n\n## Run B\n\n${RUN_END}\n`);
  });
});
