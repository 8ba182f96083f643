/**
 * HTML that is escaped by default. Every value a report shows comes from a trace, and a
 * trace holds whatever a tool printed or a model wrote: `<script>`, `</pre>`, a quote that
 * closes an attribute. So the page is built with the `html` tag, which escapes every value
 * it is given unless the value is already `SafeHtml` (markup this code wrote itself). A
 * forgotten escape is then impossible to write by accident: raw text has no way in.
 */

/** Markup this program wrote (never text from a trace). Build it with `html`. */
export class SafeHtml {
  readonly #markup: string;
  private constructor(markup: string) {
    this.#markup = markup;
  }
  /**
   * Trusts `markup` as HTML as it is: for `html` itself and for the program's own constants
   * (the page's style and script), never for a value that came from a trace.
   */
  static trusted(markup: string): SafeHtml {
    return new SafeHtml(markup);
  }
  toString(): string {
    return this.#markup;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Text as HTML that shows exactly that text, both as element content and inside a quoted
 * attribute: `&` first by construction (one pass), then `<`, `>` and both quotes.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

/** A value `html` accepts: text (escaped), numbers, markup, lists of these; nothing else. */
export type HtmlValue =
  | string
  | number
  | SafeHtml
  | false
  | null
  | undefined
  | readonly HtmlValue[];

/**
 * Tagged template: the literal parts are trusted markup, every `${value}` is escaped
 * (a list is joined, `false`/`null`/`undefined` print nothing, `SafeHtml` is kept as is).
 */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let index = 0; index < values.length; index += 1) {
    out += render(values[index]) + (strings[index + 1] ?? "");
  }
  return SafeHtml.trusted(out);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === false || value === null || value === undefined) return "";
  return escapeHtml(String(value));
}
