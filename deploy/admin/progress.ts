// Progress of long work (search reindex, seeding, migrations) on stderr: a bar when stderr is a
// terminal, nothing otherwise — so `--json`, pipes and logs get only the result on stdout.
import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` of `total` (0 when not known yet), with a short note after the bar. */
  update(done: number, total: number, note?: string): void;
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

/** A bar on a terminal's stderr (unless `enabled` is false); a no-op anywhere else. */
export function progressBar(label: string, enabled = true, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || !stream.isTTY) return silent;
  const bar = new SingleBar(
    { format: `${label} [{bar}] {percentage}% {value}/{total} {note}`, stream, hideCursor: true, etaBuffer: 20 },
    Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total, note = '') {
      if (!started) {
        bar.start(Math.max(total, done, 1), done, { note });
        started = true;
      }
      bar.setTotal(Math.max(total, done, 1));
      bar.update(done, { note });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
