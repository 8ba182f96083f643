import { readFile } from "node:fs/promises";
import path from "node:path";
import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * A test is named by its full name as vitest reports it: the titles of its enclosing
 * `describe` blocks and its own title, joined by " > ".
 */
const testName = z.string().min(1);

const ONE_LINE = "一处修改只能是一行；多行改动拆成多个 { find, replace }";
const oneLine = z.string().refine((text) => !text.includes("\n"), ONE_LINE);

/** One small edit of a gate: one line of text to find (exactly once) and its replacement. */
export const mutationEditSchema = z.object({
  find: oneLine.min(1),
  replace: oneLine,
});

export const mutationSchema = z
  .object({
    /** Short kebab-case name, used in reports and in rubric proofs as `gate:<name>`. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "kebab-case, e.g. drop-observation-push"),
    /** What bug this mutation plays, in Chinese, for the report. */
    description: z.string().min(1),
    /** Path of the file to mutate, relative to `solution/`. */
    file: z.string().min(1),
    /** Exact text to find in that file; it must occur exactly once. Or give `edits`. */
    find: z.string().min(1).optional(),
    /** Replacement of `find`. */
    replace: z.string().optional(),
    /**
     * Instead of one `find`/`replace`: small edits of one line each, applied in order, each
     * `find` occurring exactly once in the file as the edits before it left it.
     */
    edits: z.array(mutationEditSchema).min(1).optional(),
    /** Tests (full names) that must fail once the mutation is applied. */
    breaks: z.array(testName).min(1),
    /**
     * How the named tests must fail: by an assertion (the default), or by running into the
     * timeout (`"timeout"`: vitest's, or the loop guard's), for a mutant that hangs on
     * purpose (e.g. a loop without its step limit). Any other failure (a load error, a
     * thrown error, a timeout not declared) does not catch the mutant.
     */
    expect: z.enum(["assertion", "timeout"]).optional(),
  })
  .superRefine((mutation, context) => {
    const single = mutation.find !== undefined || mutation.replace !== undefined;
    if (single === (mutation.edits !== undefined)) {
      context.addIssue({
        code: "custom",
        path: ["edits"],
        message: "变异门要么写 find 和 replace，要么写 edits（一组 { find, replace }），二者选一",
      });
    } else if (single && (mutation.find === undefined || mutation.replace === undefined)) {
      context.addIssue({
        code: "custom",
        path: [mutation.find === undefined ? "find" : "replace"],
        message: "find 和 replace 要一起写",
      });
    }
  });

/** A mutation's edits, in order, whichever form the manifest wrote it in. */
export function mutationEdits(
  mutation: z.infer<typeof mutationSchema>,
): readonly { readonly find: string; readonly replace: string }[] {
  return mutation.edits ?? [{ find: mutation.find ?? "", replace: mutation.replace ?? "" }];
}

export const hintSchema = z.object({
  /** The failing test this hint is for; a hint without one applies to the whole lesson. */
  test: testName.optional(),
  /** The hint, in Chinese; ordered from a nudge to nearly the answer. */
  text: z.string().min(1),
});

export const rubricRowSchema = z.object({
  criterion: z.string().min(1),
  /**
   * What proves this row: lab test full names, `gate:<mutation name>`, or
   * `capstone:<full name>` of a test in one of the lesson's capstone test files.
   */
  proof: z.array(z.string().min(1)).min(1),
});

export const capstoneSchema = z.object({
  /** Package of the increment, e.g. `@coding-agent/agent-core`. */
  package: z.string().min(1),
  /** Files of the increment, relative to the repository root. */
  files: z.array(z.string().min(1)).min(1),
  /** Test files that prove the increment, relative to the repository root. */
  tests: z.array(z.string().min(1)).min(1),
});

export const lessonManifestSchema = z
  .object({
    id: z.string().regex(/^\d{2}$/, "two digits, e.g. 05"),
    slug: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "kebab-case, e.g. minimal-agent-loop"),
    title: z.string().min(1),
    week: z.number().int().min(1).max(8),
    starter: z.object({
      /** Tests (full names) the pristine starter must fail by an assertion; all others pass. */
      failing: z.array(testName).min(1),
    }),
    // A gate is named by its mutation's name (reports, `gate:<name>` proofs, its copy's
    // folder): two with one name would be judged against one mutant.
    mutations: z
      .array(mutationSchema)
      .min(1)
      .superRefine((mutations, context) => {
        mutations.forEach((mutation, index) => {
          if (mutations.findIndex((other) => other.name === mutation.name) < index) {
            context.addIssue({
              code: "custom",
              path: [index, "name"],
              message: `变异名 ${mutation.name} 重复，每个变异门的名字必须唯一`,
            });
          }
        });
      }),
    hints: z.array(hintSchema).min(1),
    rubric: z.array(rubricRowSchema).min(1),
    capstone: capstoneSchema,
  })
  .strict();

export type LessonManifest = z.infer<typeof lessonManifestSchema>;
export type Mutation = z.infer<typeof mutationSchema>;
export type Hint = z.infer<typeof hintSchema>;

export type ManifestResult =
  | { readonly ok: true; readonly manifest: LessonManifest }
  | { readonly ok: false; readonly file: string; readonly problems: readonly string[] };

/** Validates parsed JSON as a lesson manifest; every problem names its field path. */
export function parseManifest(file: string, data: unknown): ManifestResult {
  // zod's own messages in Chinese for this parse only; the path as the shared formatter writes it.
  const parsed = lessonManifestSchema.safeParse(data, { error: z.locales.zhCN().localeError });
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const problems = toValueIssues(parsed.error.issues, "(根)").map((issue) =>
    formatValueIssues([issue]),
  );
  return { ok: false, file, problems };
}

/** Reads and validates `<labDir>/lesson.json`. Never throws for a bad or missing file. */
export async function loadManifest(labDir: string): Promise<ManifestResult> {
  const file = path.join(labDir, "lesson.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { ok: false, file, problems: ["文件不存在或无法读取"] };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, file, problems: [`不是合法 JSON：${(error as Error).message}`] };
  }
  return parseManifest(file, data);
}
