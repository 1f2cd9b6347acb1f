// docs/BENCHMARKS.md keeps its hand-written sections (how to run, aims, where the time goes)
// across runs of `npm run bench`: a full run replaces only the part between the markers below,
// where its latest figures go. A document without the markers gets them, with the run, at its end;
// a missing document is started from the given header.
export const RUN_START = '<!-- npm run bench: the latest full run; replaced by the next one, the rest of this file is kept -->';
export const RUN_END = '<!-- end of the latest full run -->';

/** The document with `run` as its latest full run. */
export function withLatestRun(document: string | undefined, header: string, run: string): string {
  const block = `${RUN_START}\n\n${run.trim()}\n\n${RUN_END}\n`;
  if (document === undefined) return `${header.trim()}\n\n${block}`;
  const start = document.indexOf(RUN_START);
  const end = document.indexOf(RUN_END, start);
  if (start === -1 || end === -1) return `${document.trimEnd()}\n\n${block}`;
  return `${document.slice(0, start)}${block}${document.slice(end + RUN_END.length).replace(/^\n/, '')}`;
}
