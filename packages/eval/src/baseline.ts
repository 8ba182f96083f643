import { readFile } from "node:fs/promises";
import { z } from "zod";

/** What the gate reads from a results file: which task ids passed. Other fields are ignored. */
const BaselineSchema = z.object({
  tasks: z.array(z.object({ id: z.string(), passed: z.boolean() })),
});

/** One task of a baseline file: its id and whether it passed. */
export interface BaselineTask {
  readonly id: string;
  readonly passed: boolean;
}

/** The tasks of a baseline file, in its order; `missing` when the file does not exist. */
export async function loadBaseline(
  file: string,
): Promise<
  | { readonly kind: "loaded"; readonly tasks: readonly BaselineTask[] }
  | { readonly kind: "missing" }
  | { readonly kind: "invalid"; readonly message: string }
> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    return { kind: "invalid", message: `无法读取基线文件 ${file}：${String(error)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      kind: "invalid",
      message: `基线文件 ${file} 不是合法 JSON：${(error as Error).message}`,
    };
  }
  const parsed = BaselineSchema.safeParse(json);
  if (!parsed.success)
    return {
      kind: "invalid",
      message: `基线文件 ${file} 不是 coding-agent eval --json 的结果：${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(根)"}: ${issue.message}`).join("；")}`,
    };
  return {
    kind: "loaded",
    tasks: parsed.data.tasks.map((task) => ({ id: task.id, passed: task.passed })),
  };
}
