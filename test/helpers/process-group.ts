/**
 * Stopping a detached child's whole process group and waiting until it is gone. A `npx sentinel …`
 * child is a tree (npx → node → node); SIGTERM reaches all of it, but each member then runs its exit
 * work (Node flushes its compile cache into `.tools/compile-cache` at exit) after the signal is sent.
 * Removing the directory they write into before they are gone fails with ENOTEMPTY (a CI run of the
 * README suite did) or leaves it half removed.
 */

/** True while any process of group `pgid` is alive (signal 0 checks without signalling). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: a member exists but is not ours to signal (it is still alive).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Sends SIGTERM to process group `pgid` and resolves once no member is left. A group still alive
 * after `graceMs` (default 30,000 ms: generous, a busy machine is slow to exit) gets SIGKILL, and
 * the wait goes on until it is gone. Resolves at once when the group is already gone.
 */
export async function stopProcessGroup(pgid: number, graceMs = 30_000): Promise<void> {
  if (!groupAlive(pgid)) return;
  try {
    process.kill(-pgid, 'SIGTERM');
  } catch {
    return; // gone between the check and the signal
  }
  const started = Date.now();
  let killed = false;
  while (groupAlive(pgid)) {
    if (!killed && Date.now() - started > graceMs) {
      killed = true;
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
