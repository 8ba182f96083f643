import {
  type ArtifactStore,
  defineTool,
  type Tool,
  type ToolErrorResult,
  toolError,
} from "@coding-agent/agent-core";
import { z } from "zod";
import {
  fitsBudget,
  largestFitting,
  type ObservationBudget,
  observationBudget,
} from "../observation-budget.ts";
import { isArtifactId } from "./file-artifact-store.ts";

export const ReadArtifactInputSchema = z
  .object({
    id: z.string().min(1, "id 不能为空"),
    startLine: z.int().min(1).optional(),
    endLine: z.int().min(1).optional(),
  })
  .refine((input) => (input.startLine ?? 1) <= (input.endLine ?? Number.POSITIVE_INFINITY), {
    message: "startLine 不能大于 endLine",
    path: ["startLine"],
  });

export type ReadArtifactInput = z.output<typeof ReadArtifactInputSchema>;

/** A page of an artifact: whole lines (1-based, inclusive), as many as fit the budget. */
export interface ReadArtifactResult {
  readonly id: string;
  readonly content: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly totalLines: number;
  readonly truncated: boolean;
  /** The next call's `startLine` when `truncated`. */
  readonly nextStartLine?: number;
  /** Set when one line alone is longer than the budget and was cut. */
  readonly note?: string;
}

/**
 * Reads a page of an artifact (docs/contracts.md §7, lesson 25), bounded like `read_file`: whole
 * lines within the observation budget, with `nextStartLine` to read on. An id that is not
 * an artifact id (`../x`, a path) is `invalid_input`; an unknown one is `not_found`.
 */
export async function readArtifact(
  store: ArtifactStore,
  input: ReadArtifactInput,
  budget: ObservationBudget = observationBudget(),
): Promise<ReadArtifactResult | ToolErrorResult> {
  if (!isArtifactId(input.id)) {
    return toolError(
      "invalid_input",
      `artifact id 只能由字母、数字、_ 和 - 组成（例如 call_3-1），不能是路径：${JSON.stringify(input.id)}`,
    );
  }
  const text = await store.read(input.id);
  if (text === undefined) return toolError("not_found", `没有这个 artifact：${input.id}`);
  const lines = text.split("\n");
  const totalLines = lines.length;
  const startLine = input.startLine ?? 1;
  if (startLine > totalLines) {
    return toolError(
      "invalid_input",
      `startLine ${startLine} 超过 artifact 的总行数 ${totalLines}`,
    );
  }
  const lastLine = Math.min(input.endLine ?? totalLines, totalLines);
  const wanted = lines.slice(startLine - 1, lastLine);
  const page = (count: number, content?: string): ReadArtifactResult => {
    const endLine = startLine + Math.max(count, 1) - 1;
    const truncated = content !== undefined || endLine < lastLine;
    const next = content === undefined ? endLine + 1 : endLine;
    return {
      id: input.id,
      content: content ?? wanted.slice(0, count).join("\n"),
      startLine,
      endLine,
      totalLines,
      truncated,
      ...(truncated && next <= lastLine ? { nextStartLine: next } : {}),
      ...(content === undefined ? {} : { note: `第 ${startLine} 行超出观察预算，只显示了开头` }),
    };
  };
  const count = largestFitting(wanted.length, (n) => fitsBudget(page(n), budget));
  if (count > 0) return page(count);
  // One line longer than the budget: as much of its start as fits.
  const line = wanted[0] ?? "";
  const chars = largestFitting(line.length, (n) => fitsBudget(page(1, line.slice(0, n)), budget));
  return page(1, line.slice(0, chars));
}

/**
 * `read_artifact` as a tool over one run's store, paging within the run's budget; concurrent,
 * like `read_file`.
 */
export function createReadArtifactTool(
  store: ArtifactStore,
  budget: ObservationBudget = observationBudget(),
): Tool {
  return defineTool({
    description:
      "读取被存为 artifact 的完整工具输出：{ id, startLine?, endLine? } → { id, content, startLine, endLine, totalLines, truncated, nextStartLine? }。" +
      "content 是整行；truncated 为 true 时用 startLine: nextStartLine 继续读",
    inputSchema: ReadArtifactInputSchema,
    // A read changes nothing (an artifact is written once, before its id reaches the model):
    // the reads of one reply run side by side.
    concurrent: true,
    execute: (input) => readArtifact(store, input, budget),
  });
}
