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
  if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
  return new Promise((resolve) => {
    const onAbort = () => resolve({ kind: "aborted" });
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = (outcome: Settled<T>) => {
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    try {
      Promise.resolve(call()).then(
        (value) => done({ kind: "value", value }),
        (error: unknown) => done({ kind: "error", error }),
      );
    } catch (error) {
      done({ kind: "error", error });
    }
  });
}
