import type { ViteUserConfig } from "vitest/config";

/** The one import specifier through which a lab's shared tests reach the code under test. */
export declare const LAB_ALIAS: "@lab";
/** Per-test timeout for lab tests: a learner's endless loop fails, never hangs. */
export declare const LAB_TEST_TIMEOUT_MS: number;
export interface LabConfigOptions {
  /** Folder whose `index.ts` the tests import as `@lab`; defaults to `<packageDir>/src`. */
  readonly srcDir?: string;
}
/** The vitest config every lab starter and solution uses. */
export declare function defineLabConfig(
  packageDir: string,
  options?: LabConfigOptions,
): ViteUserConfig;
