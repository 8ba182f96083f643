/** The one import specifier through which a lab's shared tests reach the code under test. */
export declare const LAB_ALIAS: "@lab";
/** Per-test timeout for lab tests: a learner's endless loop fails, never hangs. */
export declare const LAB_TEST_TIMEOUT_MS: number;
/** Extra time past the test timeout after which a learner's run ends a blocking test. */
export declare const LAB_HANG_GRACE_MS: number;
export declare const LAB_HANG_SILENCE_MS: number;
/** The failure a learner sees for a test that blocked its worker (超时（同步死循环？）). */
export declare const LAB_HANG_MESSAGE: string;
/** How long a test file may take to load before it counts as blocked at its top level. */
export declare const LAB_IMPORT_TIMEOUT_MS: number;
/** The failure of a test that blocked its worker, for a given test timeout. */
export declare function blockedTestMessage(timeoutMs: number): string;
/** The failure of a test file that never finished loading (a top-level endless loop). */
export declare const IMPORT_HANG_MESSAGE: string;
