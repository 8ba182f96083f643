import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/** Where the learner tools keep their state: git-ignored, inside the repository. */
export function stateDir(repoRoot: string): string {
  return path.join(repoRoot, ".bootcamp");
}

const hintStateSchema = z.object({
  version: z.literal(1),
  /** Per lesson id, the keys (see `hintKey`) of the hints already shown. */
  labs: z.record(z.string(), z.object({ shown: z.array(z.string()) })),
});

/** Which hints were shown, per lesson. */
export type HintState = z.infer<typeof hintStateSchema>;

/** The file that remembers which hints a learner has seen. */
const hintStateFile = (repoRoot: string) => path.join(stateDir(repoRoot), "hints.json");

/**
 * Reads the hint state; a missing file is empty, a damaged one is empty with a Chinese
 * warning.
 */
export async function loadHintState(
  repoRoot: string,
): Promise<{ readonly state: HintState; readonly warning?: string }> {
  const file = hintStateFile(repoRoot);
  const empty: HintState = { version: 1, labs: {} };
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { state: empty };
  }
  try {
    const parsed = hintStateSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { state: parsed.data };
  } catch {
    // fall through to the warning below
  }
  const warning = `提示记录文件 ${path.relative(repoRoot, file)} 已损坏，已从头开始记录。`;
  return { state: empty, warning };
}

/** The keys of the hints already shown for one lesson. */
export function shownHints(state: HintState, lessonId: string): Set<string> {
  return new Set(state.labs[lessonId]?.shown ?? []);
}

/** A new state with one more hint remembered for a lesson. */
export function rememberHint(state: HintState, lessonId: string, key: string): HintState {
  const shown = state.labs[lessonId]?.shown ?? [];
  if (shown.includes(key)) return state;
  return { ...state, labs: { ...state.labs, [lessonId]: { shown: [...shown, key] } } };
}

/** Writes the state atomically (a temp file, then rename), creating `.bootcamp/`. */
export async function saveHintState(repoRoot: string, state: HintState): Promise<void> {
  const file = hintStateFile(repoRoot);
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temp, file);
}
