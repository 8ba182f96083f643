/**
 * `util.parseArgs` with Chinese usage errors. node's errors are English and carry no field
 * naming the offending argument, so its `code` says what went wrong and a lenient token pass
 * over the same argv finds which argument. Every command line of the repository (this CLI
 * and the course tools) parses through here, so a bad flag reads the same everywhere.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

type Config = ParseArgsConfig & { readonly args: readonly string[] };

/** The parsed command line, or a Chinese message for a usage error (exit code 2). */
export type ParseArgsResult<T extends Config> =
  | { readonly ok: true; readonly parsed: ReturnType<typeof parseArgs<T>> }
  | { readonly ok: false; readonly message: string };

/**
 * Runs `util.parseArgs` (strict unless the config says otherwise). A usage error comes back
 * as `{ ok: false, message }`; a mistake in `config` itself still throws.
 */
export function parseArgsOrExplain<const T extends Config>(config: T): ParseArgsResult<T> {
  try {
    return { ok: true, parsed: parseArgs(config) };
  } catch (error) {
    const message = describeParseArgsError(error, config);
    if (message === undefined) throw error;
    return { ok: false, message };
  }
}

type Token = NonNullable<ReturnType<typeof parseArgs>["tokens"]>[number];
type OptionToken = Extract<Token, { kind: "option" }>;

/**
 * The Chinese message for an error `util.parseArgs(config)` threw, or undefined when it is
 * not a usage error (a bad config is the program's bug, not the user's).
 */
export function describeParseArgsError(error: unknown, config: Config): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const options = config.options ?? {};
  const tokens = lenientTokens(config);
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const token = tokens.find(
        (t): t is OptionToken => t.kind === "option" && !Object.hasOwn(options, t.name),
      );
      return token === undefined ? "不认识的选项" : `不认识的选项：${token.rawName}`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      for (const token of tokens) {
        if (token.kind !== "option") continue;
        const type = options[token.name]?.type;
        if (type === "boolean" && token.value !== undefined) {
          return `选项 ${token.rawName} 不接受值`;
        }
        if (type === "string" && (token.value === undefined || isAmbiguous(token))) {
          return `选项 ${token.rawName} 需要一个值`;
        }
      }
      return "选项的值不对";
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL": {
      const token = tokens.find((t) => t.kind === "positional");
      return token?.kind === "positional" ? `多余的参数：${token.value}` : "多余的参数";
    }
    default:
      return undefined;
  }
}

/** `--script --json` in strict mode: the value looks like the next option. */
function isAmbiguous(token: OptionToken): boolean {
  return token.inlineValue === false && token.value?.startsWith("-") === true;
}

function lenientTokens(config: Config): Token[] {
  return parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true }).tokens;
}
