import { READ_ONLY_TOOLS, type ToolCallInfo } from "@coding-agent/agent-core";
import {
  changedFiles,
  createIgnoredFilter,
  createWorkspaceVersioner,
  type WorkspaceState,
} from "@coding-agent/tools";

/** Tools that never change the workspace: no new version is taken after them. */
const READ_ONLY: ReadonlySet<string> = new Set(READ_ONLY_TOOLS);

/**
 * The workspace's version over a run: at the start, after every tool call that may
 * change files (an edit tool, `run_command`, `run_tests`, any tool it does not know),
 * and now. The finish gate, the state log and loop detection all read it here, so they
 * agree on what "the same version" means.
 */
export interface WorkspaceTracker {
  readonly start: WorkspaceState;
  /** The version after the latest tool call (the start version before any). */
  readonly current: string;
  /** Takes the version after `call` (or the recorded one, for a call a resume replays). */
  afterCall(call: Pick<ToolCallInfo, "callId" | "tool">): Promise<string>;
  /** The version recorded after `callId`. */
  versionAfter(callId: string): string | undefined;
  /**
   * The workspace now, and the user's files changed since the start: files the workspace's
   * repository ignores (build output, caches a test run writes) are not changes.
   */
  inspect(): Promise<{ readonly version: string; readonly changedFiles: readonly string[] }>;
}

export async function createWorkspaceTracker(
  root: string,
  options: {
    /** The run's first state, for a resume: changes are counted from the original start. */
    readonly start?: WorkspaceState;
    /** Versions a resume takes from the log instead of the workspace, by call id. */
    readonly recorded?: ReadonlyMap<string, string>;
  } = {},
): Promise<WorkspaceTracker> {
  const versioner = createWorkspaceVersioner(root);
  const usersFiles = createIgnoredFilter(root);
  const now = await versioner.snapshot();
  const start = options.start ?? now;
  let current = options.start === undefined ? start.version : now.version;
  const after = new Map<string, string>();
  return {
    start,
    get current() {
      return current;
    },
    async afterCall(call) {
      const recorded = options.recorded?.get(call.callId);
      if (recorded !== undefined) current = recorded;
      else if (!READ_ONLY.has(call.tool)) current = (await versioner.snapshot()).version;
      after.set(call.callId, current);
      return current;
    },
    versionAfter: (callId) => after.get(callId),
    async inspect() {
      const state = await versioner.snapshot();
      return { version: state.version, changedFiles: await usersFiles(changedFiles(start, state)) };
    },
  };
}
