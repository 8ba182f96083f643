import type { Action } from "./action.ts";

/** What the loop sends the model on each step. */
export interface ModelRequest {
  readonly task: string;
  /** The run's observations so far, oldest first (`message:…`, `tool:NAME:JSON`). */
  readonly observations: readonly string[];
}

/** The model behind one method: a scripted fake in tests, a real adapter later. */
export interface Provider {
  /**
   * Proposes the next action. `signal` cancels the call: an already aborted signal must
   * make it reject with an `AbortError` instead of reaching the model.
   */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<Action>;
}
