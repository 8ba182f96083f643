/** The Chinese notice for a lab whose `tests/` differ from HEAD, or undefined. */
export declare function changedTestsNotice(labDir: string): string | undefined;
/** Vitest global setup: warns on stderr when the lab's tests were changed. */
export default function warnIfTestsChanged(project: {
  config: { dir?: string; root: string };
}): void;
