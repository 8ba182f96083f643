/**
 * Whether a process with this id exists: `kill(pid, 0)` sends nothing and fails with ESRCH
 * when there is none. EPERM means it exists under another user, so it counts as alive. What
 * a lock or a leftover folder names as its owner is taken over only when this says false.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
