// `npm run topology` in the foreground: each process's output on this terminal, what the gateway
// printed at start (the REST URL, the demo key and sign-in link of a first start, or the commands
// that make new ones: deploy/launcher/main.ts) shown as `npm start` shows it, and a role whose
// process dies started again — as a Deployment would — with its `ROLE pid N admin URL` line
// printed again for the new process.
import type { ChildProcess } from 'node:child_process';

/** What is supervised of a launched topology (launch.ts, which imports this file: no import back). */
interface RoleProcess {
  role: string;
  child: ChildProcess;
  adminUrl: string;
  startOutput(): string;
}
interface Topology {
  processes: RoleProcess[];
  startRole(role: string): Promise<void>;
  stop(): Promise<void>;
}

/** What main.ts printed for people (not a JSON log line, not the machine-readable LISTENING line). */
export function printedLines(output: string): string[] {
  return output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{') && !line.startsWith('LISTENING'));
}

export const processLine = (p: RoleProcess) => `${p.role.padEnd(12)} pid ${p.child.pid}  admin ${p.adminUrl}`;

const RESTART_DELAY_MS = 1000;

/** `print`: where its own lines go; `echo`: each process's output on this process's (off in tests). */
export function supervise(
  topology: Topology,
  print: (line: string) => void = (line) => console.log(line),
  options: { echo?: boolean } = {},
): { stop(): Promise<void> } {
  let stopping = false;
  const watch = (p: RoleProcess) => {
    if (options.echo !== false) {
      p.child.stdout!.pipe(process.stdout, { end: false });
      p.child.stderr!.pipe(process.stderr, { end: false });
    }
    p.child.once('exit', (code, signal) => {
      if (stopping) return;
      print(`${p.role} exited (${signal ?? code}); starting it again`);
      void restart(p.role);
    });
  };
  const restart = async (role: string): Promise<void> => {
    try {
      await topology.startRole(role);
    } catch (error) {
      if (stopping) return;
      print(`${role} did not start again (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); retrying`);
      setTimeout(() => void restart(role), RESTART_DELAY_MS).unref();
      return;
    }
    const started = topology.processes.filter((x) => x.role === role).at(-1)!;
    if (role === 'gateway') for (const line of printedLines(started.startOutput())) print(line);
    print(processLine(started));
    watch(started);
  };

  const running = topology.processes.filter((x) => x.child.exitCode === null && x.child.signalCode === null);
  for (const p of running.filter((x) => x.role === 'gateway')) for (const line of printedLines(p.startOutput())) print(line);
  for (const p of running) {
    print(processLine(p));
    watch(p);
  }
  return {
    async stop() {
      stopping = true;
      await topology.stop();
    },
  };
}
