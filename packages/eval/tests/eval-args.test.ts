import { describe, expect, it } from "vitest";
import { parseEvalArgs, parseQueueUrl } from "../src/index.ts";

describe("parseEvalArgs", () => {
  it("reads a suite run with its defaults", () => {
    expect(parseEvalArgs(["suite"])).toEqual({
      ok: true,
      command: {
        kind: "suite",
        suiteDir: "suite",
        concurrency: 2,
        json: false,
        updateBaseline: false,
      },
    });
  });

  it("reads a worker with its queue and lock settings", () => {
    expect(
      parseEvalArgs(["worker", "--queue", "redis://10.0.0.5:6380", "--lock-duration-ms", "5000"]),
    ).toEqual({
      ok: true,
      command: {
        kind: "worker",
        queue: { host: "10.0.0.5", port: 6380 },
        concurrency: 2,
        lockDurationMs: 5000,
      },
    });
  });

  it.each([
    [[]],
    [["a", "b"]],
    [["s", "--concurrency", "0"]],
    [["s", "--concurrency", "two"]],
    [["s", "--update-baseline"]],
    [["s", "--junit", ""]],
    [["s", "--bogus"]],
    [["s", "--lock-duration-ms", "10"]],
    [["worker"]],
    [["worker", "--queue", "redis://h:1", "--json"]],
    [["resume"]],
    [["resume", "job", "--trials", "2"]],
    // A regrade grades workspaces kept on this machine; a queued job keeps none to grade.
    [["regrade", "job", "--queue", "redis://h:1"]],
    [["s", "--keep-workspaces", "--queue", "redis://h:1"]],
  ])("refuses %j", (argv) => {
    const parsed = parseEvalArgs(argv);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain("用法：coding-agent eval");
  });
});

describe("parseQueueUrl", () => {
  it("takes redis://host:port and refuses anything else", () => {
    expect(parseQueueUrl("redis://127.0.0.1:6379")).toEqual({
      ok: true,
      address: { host: "127.0.0.1", port: 6379 },
    });
    expect(parseQueueUrl("redis://[::1]:7000")).toEqual({
      ok: true,
      address: { host: "::1", port: 7000 },
    });
    for (const url of ["http://h:1", "redis://", "h:1", "redis://u:p@h:1", "redis://h:1/2"]) {
      expect(parseQueueUrl(url).ok, url).toBe(false);
    }
  });
});
