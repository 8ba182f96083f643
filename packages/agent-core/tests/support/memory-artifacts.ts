import type { ArtifactStore } from "../../src/index.ts";

/**
 * An artifact store in memory for the context-budget tests: ids are `<callId>-<n>` (or what
 * `idOf` makes of them), and every text and meta it was given is kept to look at.
 */
export function memoryStore(idOf = (callId: string, n: number) => `${callId}-${n}`) {
  const texts = new Map<string, string>();
  const metas: Array<{ callId: string; tool: string }> = [];
  const store: ArtifactStore = {
    async put(text, meta) {
      const id = idOf(meta.callId, texts.size + 1);
      texts.set(id, text);
      metas.push({ ...meta });
      return id;
    },
    async read(id) {
      return texts.get(id);
    },
  };
  return { store, texts, metas };
}
