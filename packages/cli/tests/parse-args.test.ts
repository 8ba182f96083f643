import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import { describeParseArgsError, parseArgsOrExplain } from "../src/parse-args.ts";

const options = {
  script: { type: "string" },
  json: { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  seed: { type: "string", short: "s" },
} as const;

function explain(args: string[], allowPositionals = true) {
  return parseArgsOrExplain({ args, options, allowPositionals, strict: true });
}

describe("parseArgsOrExplain", () => {
  it("returns what util.parseArgs returns for a good command line", () => {
    const result = explain(["--script", "a.json", "-y", "goal"]);
    expect(result).toEqual({
      ok: true,
      parsed: { values: { script: "a.json", yes: true }, positionals: ["goal"] },
    });
  });

  it.each([
    ["an unknown long option", ["--verbose"], "不认识的选项：--verbose"],
    ["an unknown short option", ["-x"], "不认识的选项：-x"],
    [
      "an unknown option after good ones",
      ["--json", "goal", "--max-step", "3"],
      "不认识的选项：--max-step",
    ],
    ["a string option at the end", ["--script"], "选项 --script 需要一个值"],
    ["a string option before another option", ["--script", "--json"], "选项 --script 需要一个值"],
    ["a short string option before another", ["-s", "--json"], "选项 -s 需要一个值"],
    ["a boolean option given a value", ["--json=yes"], "选项 --json 不接受值"],
  ])("explains %s in Chinese, naming the argument", (_case, args, message) => {
    expect(explain(args)).toEqual({ ok: false, message });
  });

  it("names the first positional when the command takes none", () => {
    expect(explain(["--json", "extra", "more"], false)).toEqual({
      ok: false,
      message: "多余的参数：extra",
    });
  });

  it("takes a value that starts with a dash when written --opt=value", () => {
    expect(explain(["--script=-weird.json"])).toMatchObject({
      ok: true,
      parsed: { values: { script: "-weird.json" } },
    });
  });

  it("treats what follows -- as positionals, not options", () => {
    expect(explain(["--", "--verbose"])).toMatchObject({
      ok: true,
      parsed: { positionals: ["--verbose"] },
    });
  });

  it("still throws for a mistake in the config itself (the program's bug, not the user's)", () => {
    expect(() =>
      parseArgsOrExplain({ args: ["x"], options: { bad: { type: "number" as "string" } } }),
    ).toThrow();
  });
});

describe("describeParseArgsError", () => {
  it("maps node's own error for each usage code, not its English text", () => {
    const config = { args: ["--nope"], options, strict: true } as const;
    let thrown: unknown;
    try {
      parseArgs(config);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { code: string }).code).toBe("ERR_PARSE_ARGS_UNKNOWN_OPTION");
    // The message is read from the argv, so a translated or reworded node message changes nothing.
    const reworded = Object.assign(new Error("ganz anders"), {
      code: "ERR_PARSE_ARGS_UNKNOWN_OPTION",
    });
    expect(describeParseArgsError(reworded, config)).toBe("不认识的选项：--nope");
  });

  it("is undefined for an error that is not a usage error", () => {
    expect(describeParseArgsError(new TypeError("x"), { args: [], options })).toBeUndefined();
    expect(describeParseArgsError(null, { args: [], options })).toBeUndefined();
  });
});
