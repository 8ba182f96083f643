export declare const SOURCE_CONDITION: "@coding-agent/source";
export declare const SOURCE_SSR_CONDITIONS: readonly string[];
