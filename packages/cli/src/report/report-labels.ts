import { printable } from "./printable.ts";
import type { Cost } from "./report-model.ts";

/** How each run status reads in Chinese, and its tone (the colour both reports give it). */
const STATUSES: Readonly<Record<string, { readonly label: string; readonly tone: Tone }>> = {
  completed: { label: "完成", tone: "good" },
  failed: { label: "失败", tone: "bad" },
  budget_exceeded: { label: "超出预算", tone: "warn" },
  blocked: { label: "被阻止", tone: "blocked" },
  cancelled: { label: "已取消", tone: "muted" },
  unfinished: { label: "未结束", tone: "info" },
};

/** A status's colour family: the terminal and the page map it to their own colours. */
export type Tone = "good" | "bad" | "warn" | "blocked" | "muted" | "info";

/** The Chinese name of a status; a status this version does not know is shown as it is. */
export function statusLabel(status: string): string {
  // A status the report does not know comes from the file: shown escaped, like every field.
  return STATUSES[status]?.label ?? printable(status);
}

export function statusTone(status: string): Tone {
  return STATUSES[status]?.tone ?? "info";
}

/** What a reply asked for, in Chinese (the action type itself stays beside it). */
export function actionLabel(actionType: string | undefined): string {
  switch (actionType) {
    case "tool_call":
      return "调用工具";
    case "finish":
      return "提议完成";
    case undefined:
      return "多个动作";
    default:
      return printable(actionType);
  }
}

/** `—` when there is no value: an absent cost and an unknown price look the same. */
export const NONE = "—";

/** USD with enough decimals for a cheap call; `—` when absent or unknown. */
export function formatCost(cost: Cost): string {
  if (cost === undefined || cost === null) return NONE;
  if (cost === 0) return "$0";
  if (cost >= 1) return `$${cost.toFixed(2)}`;
  if (cost >= 0.01) return `$${cost.toFixed(4)}`;
  // Three significant digits for a cheap call: $0.00272, not $0.002720.
  return `$${Number(cost.toPrecision(3))}`;
}

/** Milliseconds for people: `35 ms`, `1.24 s`, `2 分 05 秒`; `—` when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return NONE;
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)} 分 ${String(seconds % 60).padStart(2, "0")} 秒`;
}

/** A count with thousands separators. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** The run's budgets as one line (`maxSteps 20 · maxTokens 50000`); `—` when none were recorded. */
export function formatLimits(limits: Readonly<Record<string, unknown>> | undefined): string {
  const entries = Object.entries(limits ?? {});
  if (entries.length === 0) return NONE;
  return entries
    .map(([name, value]) => `${name} ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" · ");
}
