// The embedded database's folder belongs to one process at a time. PGlite does no locking of
// its own, and two processes writing one folder (a second `npm start`, or a command such as
// `npm run reset-password` while the server runs) corrupt it. The owner's process id is written
// to a file created exclusively; a file left by a process that no longer runs is taken over.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { StartupError } from '../startup.ts';

/** Lock files this process holds (a second open in the same process is refused too). */
const held = new Set<string>();

/** Whether the process `pid` runs (false for this process's own id: a file left by an earlier process that had it). */
export function running(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `file` for this process; returns its release. Throws StartupError when another live process holds it. */
export function lockDataDir(file: string, what: string): () => void {
  if (held.has(file)) throw new StartupError(`${what} is already open in this process`);
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw err;
      const owner = Number.parseInt(readFileSync(file, 'utf8'), 10);
      if (Number.isInteger(owner) && owner > 0 && running(owner)) {
        throw new StartupError(
          `${what} is in use by process ${owner} (a running server?): stop it first, or set DATABASE_URL to share a PostgreSQL server`,
        );
      }
      unlinkSync(file); // stale: its process is gone
    }
  }
  held.add(file);
  return () => {
    if (!held.delete(file)) return;
    try {
      unlinkSync(file);
    } catch {
      // already gone: nothing to release
    }
  };
}
