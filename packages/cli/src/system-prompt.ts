import { lstat, readFile, realpath } from "node:fs/promises";
import path from "node:path";
import type { Message, ModelRequest, Redactor } from "@coding-agent/agent-core";

/**
 * The built-in part of a real model's system prompt (docs/contracts.md §7): the agent's role, how
 * to use the tools, and that a finish needs passing tests. Without it a real model does
 * not know the finish gate exists and "finishes" on its own word.
 */
export const BUILTIN_SYSTEM_PROMPT = [
  "你是一个在代码仓库里工作的编程 Agent。你只能通过工具读写工作区、运行命令；工作区之外的一切都看不到，也改不了。",
  "",
  "工作方法：",
  "- 先看再改：用 list_files、search、read_file 了解代码；read_file 返回的 hash 可以作为 edit_file / write_file 的 expectedHash，避免覆盖别人刚改过的文件。",
  "- 小步修改：edit_file 用一段只出现一次的原文 old 替换为 new；多处相关修改用 apply_edits，一起成功或一起不生效。",
  "- 用 run_tests 运行项目的测试命令，读它返回的 passed / failed / failures；run_command 只能运行被允许的程序。",
  "- 工具返回 { ok: false, error: { code, message } } 时，读懂原因再决定下一步，不要原样重试同一个调用。",
  "- 大的输出会被截断并说明如何取下一页；不要一次读整个大文件。",
  "",
  "完成规则：只有在工作区当前版本上运行过 run_tests，并且测试全部通过（failed 为 0、passed 至少 1），改动的文件都在允许的路径内，才提出 finish。",
  "之后任何修改（包括 run_command 改动的文件）都会让那次测试结果过期，需要重新运行 run_tests。",
  "提前提出的 finish 会被拒绝：你会收到一条 finish_rejected 消息，列出原因（no_test_evidence、stale_test_evidence、tests_failing、changes_outside_allowed_paths），按原因补上再提出。",
  "finish 的 summary 用一两句话说明改了什么、测试结果如何。不要在任何输出里写出密钥或密码。",
].join("\n");

/** The most `AGENTS.md` text a prompt carries (as Codex bounds its project docs: 32 KiB). */
export const MAX_AGENTS_MD_BYTES = 32 * 1024;

/**
 * The system prompt of a run with a real model: `base` (the built-in text, or the
 * `--system-prompt-file` content that replaces it), then the workspace's `AGENTS.md`
 * files, the root's first, then those in the folders on the way to every file the run
 * has touched so far (a path in a tool call's input), each once, in the order they were
 * reached. Bounded by `MAX_AGENTS_MD_BYTES` and redacted; a symlinked `AGENTS.md` is not
 * followed (it could lead out of the workspace).
 */
export function createSystemPrompt(options: {
  readonly workspace: string;
  readonly redact: Redactor;
  readonly base?: string;
}): (request: ModelRequest) => Promise<string> {
  const base = options.base ?? BUILTIN_SYSTEM_PROMPT;
  const docs = new Map<string, Promise<string | undefined>>();
  const read = (folder: string) => {
    let doc = docs.get(folder);
    if (doc === undefined) {
      doc = readAgentsMd(options.workspace, folder);
      docs.set(folder, doc);
    }
    return doc;
  };
  return async (request) => {
    const folders = [".", ...foldersTouched(request.messages)];
    const parts: string[] = [];
    let budget = MAX_AGENTS_MD_BYTES;
    for (const folder of folders) {
      const text = await read(folder);
      if (text === undefined || budget <= 0) continue;
      const title = folder === "." ? "AGENTS.md（仓库根目录）" : `${folder}/AGENTS.md`;
      const bounded = clipBytes(text, budget);
      budget -= Buffer.byteLength(bounded);
      parts.push(`# ${title}\n${bounded}`);
    }
    const prompt = parts.length === 0 ? base : `${base}\n\n${parts.join("\n\n")}`;
    return options.redact(prompt);
  };
}

/** Folders (relative, `/`-separated, root excluded) on the way to each path a call named. */
function foldersTouched(messages: readonly Message[]): string[] {
  const folders = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant" || message.type !== "tool_call") continue;
    for (const file of pathsIn(message.input)) {
      const normalized = path.posix.normalize(file.replaceAll("\\", "/"));
      if (normalized.startsWith("..") || path.posix.isAbsolute(normalized)) continue;
      const parts = path.posix
        .dirname(normalized)
        .split("/")
        .filter((part) => part !== ".");
      for (let depth = 1; depth <= parts.length; depth += 1) {
        folders.add(parts.slice(0, depth).join("/"));
      }
    }
  }
  return [...folders];
}

function pathsIn(input: unknown): string[] {
  if (typeof input !== "object" || input === null) return [];
  const record = input as { path?: unknown; edits?: unknown };
  const own = typeof record.path === "string" ? [record.path] : [];
  const edits = Array.isArray(record.edits) ? record.edits.flatMap(pathsIn) : [];
  return [...own, ...edits];
}

/** The `AGENTS.md` of `folder`, unless the folder or the file leads out of the workspace. */
async function readAgentsMd(workspace: string, folder: string): Promise<string | undefined> {
  try {
    const root = await realpath(workspace);
    const real = await realpath(path.join(root, folder));
    if (real !== root && !real.startsWith(`${root}${path.sep}`)) return undefined;
    const file = path.join(real, "AGENTS.md");
    const stats = await lstat(file);
    if (!stats.isFile()) return undefined;
    return (await readFile(file, "utf8")).trim();
  } catch {
    return undefined;
  }
}

function clipBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text);
  if (buffer.length <= bytes) return text;
  const marker = "\n…（AGENTS.md 超出长度上限，其余部分省略）";
  return `${buffer
    .subarray(0, Math.max(0, bytes - Buffer.byteLength(marker)))
    .toString("utf8")
    .replace(/\uFFFD+$/, "")}${marker}`;
}
