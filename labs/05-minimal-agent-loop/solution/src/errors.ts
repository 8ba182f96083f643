/**
 * Thrown only for a programmer mistake (a new action type with no branch in the loop),
 * never for an ordinary outcome: a run that fails, runs out of budget or is cancelled
 * returns an `AgentRunResult` instead.
 */
export class UnhandledActionError extends Error {
  override readonly name = "UnhandledActionError";
  readonly action: unknown;

  constructor(action: unknown) {
    super(`the loop has no branch for action ${JSON.stringify(action)}`);
    this.action = action;
  }
}
