/** How an awaited call ended: a value, an error, or the signal fired first. */
export type Settled<T> =
  | { readonly kind: "value"; readonly value: T }
  | { readonly kind: "error"; readonly error: unknown }
  | { readonly kind: "aborted" };

/**
 * Runs `call` and races it against `signal`. Resolves as soon as either ends, and
 * never rejects: a synchronous throw or a rejection becomes `error`. A provider or
 * tool that ignores the signal therefore cannot keep a cancelled run waiting; its
 * late result is dropped (its rejection is still handled, never left unhandled).
 */
export function settle<T>(
  call: () => T | PromiseLike<T>,
  signal: AbortSignal | undefined,
): Promise<Settled<T>> {
  if (signal === undefined) {
    // Nothing to race: skip the listener bookkeeping on this hot path.
    try {
      return Promise.resolve(call()).then(toValue, toError);
    } catch (error) {
      return Promise.resolve(toError(error));
    }
  }
  // One call against a signal is a race of one: the same code as a run's many calls.
  const race = new SignalRace(signal);
  return race.settle(call).finally(() => race.dispose());
}

const ABORTED: Settled<never> = Object.freeze({ kind: "aborted" });

function toValue<T>(value: T): Settled<T> {
  return { kind: "value", value };
}

function toError(error: unknown): Settled<never> {
  return { kind: "error", error };
}

/**
 * `settle` for many calls against one signal: one `abort` listener for the whole
 * run instead of an add and a remove per call (Node's `EventTarget` makes those
 * the most expensive part of a step). At most one call is raced at a time; call
 * `dispose` when the run ends so the signal does not keep the run alive.
 */
export interface AbortRace {
  settle<T>(call: () => T | PromiseLike<T>): Promise<Settled<T>>;
  dispose(): void;
}

/** Creates the race of one run; without a signal it is `settle` with nothing to race. */
export function createAbortRace(signal: AbortSignal | undefined): AbortRace {
  return signal === undefined ? UNRACED : new SignalRace(signal);
}

const UNRACED: AbortRace = Object.freeze({
  settle: <T>(call: () => T | PromiseLike<T>) => settle(call, undefined),
  dispose() {},
});

/**
 * A class, and no named closure per call: each step allocates only the promise and
 * its two callbacks (a named closure costs a `defineProperty` under `keepNames`).
 */
class SignalRace implements AbortRace {
  /** Resolves the call being raced; the listener resolves it with `aborted`. */
  private pending: ((outcome: Settled<never>) => void) | undefined;
  private readonly onAbort = (): void => {
    const resolve = this.pending;
    this.pending = undefined;
    resolve?.(ABORTED);
  };

  private readonly signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.signal = signal;
    // A signal aborts once: the listener runs at most once without `{ once: true }`.
    signal.addEventListener("abort", this.onAbort);
  }

  settle<T>(call: () => T | PromiseLike<T>): Promise<Settled<T>> {
    if (this.signal.aborted) return Promise.resolve(ABORTED);
    return new Promise<Settled<T>>((resolve) => {
      // Set before the call: a call that aborts the signal itself is raced too.
      this.pending = resolve;
      try {
        Promise.resolve(call()).then(
          (value) => this.finish(resolve, toValue(value)),
          (error: unknown) => this.finish(resolve, toError(error)),
        );
      } catch (error) {
        this.finish(resolve, toError(error));
      }
    });
  }

  dispose(): void {
    this.pending = undefined;
    this.signal.removeEventListener("abort", this.onAbort);
  }

  private finish<T>(resolve: (outcome: Settled<T>) => void, outcome: Settled<T>): void {
    // Calls of one run never overlap: the entry being cleared is this call's. (A settled
    // promise ignores a second resolve, so an abort after this changes nothing either.)
    this.pending = undefined;
    resolve(outcome);
  }
}

/** How a call raced against a timer ended: as `settle`'s outcomes, or the timer fired first. */
export type TimedSettled<T> = Settled<T> | { readonly kind: "timeout" };

/**
 * Runs `call` with an `AbortSignal` of its own and resolves with the first of: the
 * call ends (`value` / `error`), `timeoutMs` passes (`timeout`), `signal` fires
 * (`aborted`). The call's signal is aborted when the timer fires (its reason a
 * `TimeoutError` DOMException, as `AbortSignal.timeout` gives) or when `signal`
 * fires (with `signal`'s reason), so a call that honours it stops working; one
 * that ignores it is no longer waited for. Never rejects. Once it resolves the
 * timer is cleared and the listener removed: nothing fires later, nothing keeps
 * the process alive, and a long run does not collect listeners on `signal`.
 */
export function settleWithTimeout<T>(
  call: (signal: AbortSignal) => T | PromiseLike<T>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<TimedSettled<T>> {
  if (signal?.aborted === true) return Promise.resolve(ABORTED);
  const controller = new AbortController();
  return new Promise<TimedSettled<T>>((resolve) => {
    // Whichever ends first wins; a later one finds the timer cleared, the listener gone and
    // the promise settled, so every step here may safely run again.
    const done = (outcome: TimedSettled<T>) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = () => {
      controller.abort(signal?.reason);
      done(ABORTED);
    };
    const timer = setTimeout(() => {
      controller.abort(new DOMException(`调用超过 ${timeoutMs} ms`, "TimeoutError"));
      done(TIMED_OUT);
    }, timeoutMs);
    // No `once`: `done` removes the listener whichever way the call ends.
    signal?.addEventListener("abort", onAbort);
    try {
      Promise.resolve(call(controller.signal)).then(
        (value) => done(toValue(value)),
        (error: unknown) => done(toError(error)),
      );
    } catch (error) {
      done(toError(error));
    }
  });
}

const TIMED_OUT: TimedSettled<never> = Object.freeze({ kind: "timeout" });
