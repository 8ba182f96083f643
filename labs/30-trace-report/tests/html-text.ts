/**
 * How a browser reads an HTML fragment, as far as these tests need it: the text of an
 * element (the five entities decoded, in one pass) and the tags with their attributes.
 * A fragment whose values were escaped has no `<` of its own, so every tag found here is
 * one that `renderStep` wrote — or one that got through unescaped.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

/** The text a browser shows for `html`: the entities decoded once, left to right. */
export function decodeText(html: string): string {
  return html.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity] ?? entity);
}

export interface Tag {
  readonly name: string;
  /** Attribute names, in order. */
  readonly attributes: readonly string[];
  /** Attribute values as written (between the quotes), by name. */
  readonly values: Readonly<Record<string, string>>;
}

/** Every opening tag of a fragment, in order. */
export function tagsOf(html: string): Tag[] {
  return [...html.matchAll(/<([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>/g)].map((match) => {
    const attributes: string[] = [];
    const values: Record<string, string> = {};
    for (const attribute of (match[2] ?? "").matchAll(
      /([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g,
    )) {
      const name = (attribute[1] ?? "").toLowerCase();
      attributes.push(name);
      values[name] = attribute[2] ?? attribute[3] ?? attribute[4] ?? "";
    }
    return { name: (match[1] ?? "").toLowerCase(), attributes, values };
  });
}

/** The decoded text of the first `<pre class="…">` of a fragment. */
export function preText(html: string, className: string): string | undefined {
  const match = new RegExp(`<pre class="${className}">([\\s\\S]*?)</pre>`).exec(html);
  return match?.[1] === undefined ? undefined : decodeText(match[1]);
}
