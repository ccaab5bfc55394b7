/**
 * Real processes for the demo's runs: each run the fleet starts gets a child
 * process (`sleep`) whose pid its heartbeats carry, so that on the demo machine the board's
 * liveness check is true: a run that dies with its worker has its process killed ("dead: pid N is
 * gone on this machine"), a slow one keeps it ("alive: ... running here"). A run that ends stops
 * its process too, as ferry's engine exits. Without `sleep` (not Unix), no process: the caller
 * falls back to a made-up pid, which this machine then reads as whatever that pid is.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** The demo's run processes by run key (`<order>/<agent>`). */
export class DemoEngines {
  private readonly procs = new Map<string, ChildProcess>();

  /** Starts the process of run `key` and returns its pid, or null when it could not start. */
  start(key: string): number | null {
    this.end(key);
    try {
      const c = spawn('sleep', ['86400'], { stdio: 'ignore' });
      c.on('error', () => this.procs.delete(key)); // no sleep here: the run keeps its pid, no process
      if (c.pid === undefined) return null;
      this.procs.set(key, c);
      return c.pid;
    } catch {
      return null;
    }
  }

  /** Kills run `key`'s process (SIGKILL: a death, or the end of a run), if it has one. */
  end(key: string): void {
    const c = this.procs.get(key);
    if (!c) return;
    this.procs.delete(key);
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }

  /** Kills every process (the fleet stops). */
  endAll(): void {
    for (const k of [...this.procs.keys()]) this.end(k);
  }
}
