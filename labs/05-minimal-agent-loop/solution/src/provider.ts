import type { Action } from "./action.ts";

/** What the loop sends the model on each step. */
export interface ModelRequest {
  readonly task: string;
  /** A copy of the run's observations so far, oldest first. */
  readonly observations: readonly string[];
}

/** The model behind one interface: a scripted fake in tests, a real adapter later. */
export interface Provider {
  /** Proposes the next action; `signal` lets an in-flight call stop when the run is cancelled. */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<Action>;
}
