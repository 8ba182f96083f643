import { cp, mkdir, mkdtemp, readdir, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const LAB_KIT = path.join(import.meta.dirname, "..");

/**
 * Copies a fixture folder into a fresh temp dir and gives it a `node_modules` that
 * resolves what a real workspace would: lab-kit's dependencies and `@bootcamp/lab-kit`.
 * Returns the copy and the temp root to remove afterwards.
 */
export async function copyFixture(name: string): Promise<{ root: string; dir: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), `lab-kit-${name}-`));
  const dir = path.join(root, name);
  await cp(path.join(FIXTURES, name), dir, { recursive: true });
  const modules = path.join(root, "node_modules");
  await mkdir(path.join(modules, "@bootcamp"), { recursive: true });
  for (const entry of await readdir(path.join(LAB_KIT, "node_modules"))) {
    if (entry.startsWith(".")) continue;
    await symlink(path.join(LAB_KIT, "node_modules", entry), path.join(modules, entry), "dir");
  }
  await symlink(LAB_KIT, path.join(modules, "@bootcamp", "lab-kit"), "dir");
  return { root, dir };
}
