import { readdir } from "node:fs/promises";
import path from "node:path";

/** A lab folder found on disk: `labs/NN-slug/`. */
export interface LabLocation {
  readonly id: string;
  readonly slug: string;
  readonly dir: string;
}

const LAB_FOLDER = /^(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$/;

/** Every `labs/NN-slug` folder under `repoRoot`, ordered by number. */
export async function listLabs(repoRoot: string): Promise<LabLocation[]> {
  const labsDir = path.join(repoRoot, "labs");
  let names: string[];
  try {
    names = await readdir(labsDir);
  } catch {
    return [];
  }
  const labs: LabLocation[] = [];
  for (const name of names) {
    const match = LAB_FOLDER.exec(name);
    if (match?.[1] !== undefined && match[2] !== undefined) {
      labs.push({ id: match[1], slug: match[2], dir: path.join(labsDir, name) });
    }
  }
  return labs.sort((a, b) => a.id.localeCompare(b.id));
}

/** Accepts `5`, `05` or `05-minimal-agent-loop`; returns the two-digit id or undefined. */
export function normalizeLessonId(input: string): string | undefined {
  const match = /^(\d{1,2})(?:-[a-z0-9-]+)?$/.exec(input.trim());
  if (match?.[1] === undefined) return undefined;
  return match[1].padStart(2, "0");
}
