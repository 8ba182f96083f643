/** The one import specifier through which a lab's shared tests reach the code under test. */
export declare const LAB_ALIAS: "@lab";
/** Per-test timeout for lab tests: a learner's endless loop fails, never hangs. */
export declare const LAB_TEST_TIMEOUT_MS: number;
