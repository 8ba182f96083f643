/** Why `runProcess` asks its `ProcessGroup` to kill the child and what it started. */
export type KillReason =
  /** The call ran past its `timeoutMs`. */
  | "timeout"
  /** The run's signal fired. */
  | "abort"
  /**
   * The child itself exited: what it left running in the background would outlive the
   * call and hold the output pipes open, so the call would never end.
   */
  | "exit"
  /** Node reported an error about the started child; the call rejects with it. */
  | "error";

/** The started child as a `ProcessGroup` sees it. */
export interface StartedChild {
  /** The child's pid; when the child leads its own group, also the group's id. */
  readonly pid: number;
  /** Sends `signal` to the child alone (`ChildProcess.kill`); false once it has exited. */
  kill(signal: NodeJS.Signals): boolean;
}

/**
 * Where `runProcess` puts the child and how it ends the child and everything the child
 * started (lesson 12's piece; `OWN_PROCESS_GROUP` is the default). Stdin closed, no shell,
 * output caps and waiting for the pipes stay in `runProcess`.
 */
export interface ProcessGroup {
  /** Start the child as the leader of a new session and process group (spawn's `detached`, i.e. setsid). */
  readonly newGroup: boolean;
  /**
   * Kills the child and everything it started. Called on timeout, on abort, on an error
   * and when the child exits, so it may run more than once and find everything gone
   * already. It must not throw: a throw rejects the call with that error.
   */
  killAll(child: StartedChild, reason: KillReason): void;
}

/**
 * The default: the child leads a new process group, whose id is its pid, and its
 * children and grandchildren stay in that group; SIGKILL goes to the whole group.
 */
export const OWN_PROCESS_GROUP: ProcessGroup = {
  newGroup: true,
  killAll(child) {
    try {
      // A negative pid addresses the process group.
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // ESRCH: the group is already gone.
    }
  },
};
