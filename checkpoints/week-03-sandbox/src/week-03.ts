import { failed, jsonOrUndefined, passed, type Verdict } from "@bootcamp/checkpoint-shared";
import { z } from "zod";

/** What the week-3 checkpoint must prove, in its own words. */
export const WEEK_03_SUMMARY =
  "工作区内列出并读取文件、运行允许的 node --version；越界读取被拒绝，未允许的命令在 deny 下以 blocked 结束且没有执行";

/** The workspace's README, as the checkpoint writes it. */
export const README_TEXT = "# 示例仓库\n第二行\n";
/** Written outside the workspace: must never appear in the run's output. */
export const OUTSIDE_SECRET = "outside-the-workspace-7c1e\n";
/** The file the refused `touch` would create: its absence proves nothing ran. */
export const BLOCKED_MARKER = "blocked-command-ran.txt";

/** What one checkpoint run left behind. */
export interface Week03Run {
  readonly exitCode: number;
  /** The CLI's `--json` output. */
  readonly stdout: string;
  readonly blockedCommandRan: boolean;
}

/** The parts of the CLI's `RunResult` JSON the verdict reads (checked: it comes from a process boundary). */
const RunJsonSchema = z.object({
  status: z.string(),
  code: z.string(),
  reason: z.string(),
  messages: z.array(
    z.union([
      z.object({
        role: z.literal("assistant"),
        type: z.literal("tool_call"),
        callId: z.string(),
        tool: z.string(),
        input: z.record(z.string(), z.unknown()),
      }),
      z.object({
        role: z.literal("tool"),
        callId: z.string(),
        tool: z.string(),
        ok: z.boolean(),
        content: z.string(),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
      }),
      z.object({ role: z.string() }),
    ]),
  ),
});

/** One tool call of the run with its result. */
interface Call {
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly ok: boolean;
  /** The parsed value of a success. */
  readonly value: Record<string, unknown>;
  readonly errorCode: string | undefined;
}

/**
 * Judges a week-3 run. The evidence is read from the run's own messages, one line
 * per call (`tool:input → what came back`), never written by hand; each check then
 * compares it with what the workspace really holds.
 */
export function judgeWeek03(run: Week03Run): Verdict<3> {
  const parsed = RunJsonSchema.safeParse(jsonOrUndefined(run.stdout));
  const calls = parsed.success ? pairCalls(parsed.data.messages) : [];
  const evidence = [...calls.map(describeCall), `exit:${run.exitCode}`];
  const fail = (reason: string) => failed(3, WEEK_03_SUMMARY, evidence, reason);
  if (!parsed.success) return fail("coding-agent run --json 的输出不是 RunResult");
  const result = parsed.data;

  if (run.stdout.includes(OUTSIDE_SECRET.trim()))
    return fail("工作区之外的文件内容出现在了运行结果里");
  const [list, read, command, outside, refused] = calls;
  const files = list?.value.files;
  if (!list?.ok || !Array.isArray(files) || !files.includes("README.md"))
    return fail("list_files 没有列出 README.md");
  if (!read?.ok || read.value.content !== README_TEXT.trimEnd())
    return fail("read_file README.md 的内容与工作区里的文件不一致");
  if (
    !command?.ok ||
    command.value.exitCode !== 0 ||
    !/^v\d+\.\d+\.\d+\n$/.test(String(command.value.stdout))
  )
    return fail("允许的 node --version 没有成功运行");
  if (outside?.errorCode !== "path_outside_workspace")
    return fail(
      `越界读取 ../outside.txt 应被拒绝为 path_outside_workspace，实际：${outside?.errorCode ?? "没有拒绝"}`,
    );
  if (
    result.status !== "blocked" ||
    run.exitCode !== 4 ||
    refused?.errorCode !== "permission_denied"
  )
    return fail(
      `未允许的命令在 --approval deny 下应以 blocked（退出码 4）结束，实际：${result.status}（退出码 ${run.exitCode}）`,
    );
  if (run.blockedCommandRan) return fail("被阻止的命令仍然执行了");
  return passed(3, WEEK_03_SUMMARY, evidence);
}

function pairCalls(messages: z.infer<typeof RunJsonSchema>["messages"]): Call[] {
  const calls: Call[] = [];
  for (const message of messages) {
    if (!("callId" in message) || message.role !== "tool" || !("ok" in message)) continue;
    const request = messages.find(
      (m) => "type" in m && m.type === "tool_call" && "callId" in m && m.callId === message.callId,
    );
    const input = request !== undefined && "input" in request ? request.input : {};
    const value = message.ok ? jsonOrUndefined(message.content) : undefined;
    calls.push({
      tool: message.tool,
      input,
      ok: message.ok,
      value: typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {},
      errorCode: message.error?.code,
    });
  }
  return calls;
}

/** One evidence line: what was asked and what came back (an error by its code). */
function describeCall(call: Call): string {
  const input = JSON.stringify(call.input);
  if (!call.ok) return `${call.tool}:${input}→${call.errorCode ?? "error"}`;
  switch (call.tool) {
    case "list_files":
      return `${call.tool}:${input}→${JSON.stringify(call.value.files)}`;
    case "read_file":
      return `${call.tool}:${input}→totalLines=${String(call.value.totalLines)}`;
    case "run_command":
      return `${call.tool}:${input}→exitCode=${String(call.value.exitCode)}`;
    default:
      return `${call.tool}:${input}→ok`;
  }
}
