import { access } from "node:fs/promises";

/** Whether a file or folder exists (and is reachable); never throws. */
export async function pathExists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
