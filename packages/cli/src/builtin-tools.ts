import { defineTool, type ToolSet } from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * Tools the CLI offers the fake model: `echo` returns its `text`; `sleep` waits
 * `ms` milliseconds (at most a minute) and stops as soon as the run is cancelled.
 */
export const BUILTIN_TOOLS: ToolSet = {
  echo: defineTool({
    description: "返回 input.text",
    inputSchema: z.strictObject({ text: z.string() }),
    execute: ({ text }) => text,
  }),
  sleep: {
    description: "等待 input.ms 毫秒，可被取消",
    execute: (input, signal) => {
      const ms = typeof input.ms === "number" ? Math.min(Math.max(0, input.ms), 60_000) : 0;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          signal.removeEventListener("abort", onAbort);
          resolve(`slept ${ms} ms`);
        }, ms);
        function onAbort() {
          clearTimeout(timer);
          reject(signal.reason);
        }
        signal.addEventListener("abort", onAbort, { once: true });
      });
    },
  },
};
