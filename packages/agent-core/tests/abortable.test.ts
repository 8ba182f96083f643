import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { settle, settleWithTimeout } from "../src/abortable.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Work that ends when its signal fires (with the signal's reason) or after `ms`. */
const work = (ms: number) => (signal: AbortSignal) =>
  new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => resolve("done"), ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

describe("settleWithTimeout", () => {
  it("gives the value of a call that ends in time, and clears its timer", async () => {
    let seen: AbortSignal | undefined;
    const pending = settleWithTimeout(
      (signal) => {
        seen = signal;
        return work(10)(signal);
      },
      100,
      undefined,
    );
    await vi.advanceTimersByTimeAsync(10);
    await expect(pending).resolves.toEqual({ kind: "value", value: "done" });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen?.aborted).toBe(false);
  });

  it("answers timeout when the timer fires first, and aborts the call's signal with a TimeoutError", async () => {
    let seen: AbortSignal | undefined;
    const pending = settleWithTimeout(
      (signal) => {
        seen = signal;
        return work(10_000)(signal);
      },
      100,
      undefined,
    );
    await vi.advanceTimersByTimeAsync(100);
    await expect(pending).resolves.toEqual({ kind: "timeout" });
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toHaveProperty("name", "TimeoutError");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not wait for a call that ignores its signal", async () => {
    const pending = settleWithTimeout(() => new Promise(() => {}), 50, undefined);
    await vi.advanceTimersByTimeAsync(50);
    await expect(pending).resolves.toEqual({ kind: "timeout" });
  });

  it("passes the outer signal's abort on to the call, with its reason, and clears the timer", async () => {
    const outer = new AbortController();
    let seen: AbortSignal | undefined;
    const pending = settleWithTimeout(
      (signal) => {
        seen = signal;
        return work(10_000)(signal);
      },
      5_000,
      outer.signal,
    );
    outer.abort(new Error("停"));
    await expect(pending).resolves.toEqual({ kind: "aborted" });
    expect(seen?.reason).toHaveProperty("message", "停");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not start the call when the outer signal has already fired", async () => {
    const outer = new AbortController();
    outer.abort();
    const call = vi.fn(() => "ran");
    await expect(settleWithTimeout(call, 100, outer.signal)).resolves.toEqual({ kind: "aborted" });
    expect(call).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("turns a synchronous throw and a rejection into error outcomes", async () => {
    const boom = new Error("boom");
    await expect(
      settleWithTimeout(
        () => {
          throw boom;
        },
        100,
        undefined,
      ),
    ).resolves.toEqual({ kind: "error", error: boom });
    await expect(settleWithTimeout(() => Promise.reject(boom), 100, undefined)).resolves.toEqual({
      kind: "error",
      error: boom,
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("removes its listener from the outer signal however the call ends", async () => {
    const outer = new AbortController();
    await settleWithTimeout(() => "ok", 100, outer.signal);
    const slow = settleWithTimeout(() => new Promise(() => {}), 100, outer.signal);
    await vi.advanceTimersByTimeAsync(100);
    await slow;
    expect(getEventListeners(outer.signal, "abort")).toHaveLength(0);
  });
});

describe("settle against a signal", () => {
  it("resolves aborted as soon as the signal fires, without waiting for the call", async () => {
    const controller = new AbortController();
    const pending = settle(() => new Promise(() => {}), controller.signal);
    controller.abort(new Error("stop"));
    await expect(pending).resolves.toEqual({ kind: "aborted" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("gives the value, a rejection or a synchronous throw, and leaves no listener", async () => {
    const { signal } = new AbortController();
    const boom = new Error("boom");
    await expect(settle(() => Promise.resolve(7), signal)).resolves.toEqual({
      kind: "value",
      value: 7,
    });
    await expect(settle(() => Promise.reject(boom), signal)).resolves.toEqual({
      kind: "error",
      error: boom,
    });
    await expect(
      settle(() => {
        throw boom;
      }, signal),
    ).resolves.toEqual({ kind: "error", error: boom });
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("does not start the call when the signal has already fired", async () => {
    const controller = new AbortController();
    controller.abort();
    const call = vi.fn(() => 1);
    await expect(settle(call, controller.signal)).resolves.toEqual({ kind: "aborted" });
    expect(call).not.toHaveBeenCalled();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("reports a late rejection of a call it stopped waiting for as nothing, never unhandled", async () => {
    const controller = new AbortController();
    let reject: (error: Error) => void = () => {};
    const pending = settle(() => new Promise((_, fail) => (reject = fail)), controller.signal);
    controller.abort();
    await expect(pending).resolves.toEqual({ kind: "aborted" });
    reject(new Error("late"));
    await vi.advanceTimersByTimeAsync(0);
  });
});

describe("settle without a signal", () => {
  it("gives the value, a rejection or a synchronous throw", async () => {
    const boom = new Error("boom");
    await expect(settle(() => 1, undefined)).resolves.toEqual({ kind: "value", value: 1 });
    await expect(settle(() => Promise.reject(boom), undefined)).resolves.toEqual({
      kind: "error",
      error: boom,
    });
    await expect(
      settle(() => {
        throw boom;
      }, undefined),
    ).resolves.toEqual({ kind: "error", error: boom });
  });
});
