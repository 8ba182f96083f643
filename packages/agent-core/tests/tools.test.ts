import { describe, expect, it } from "vitest";
import { InvalidToolRegistryError } from "../src/errors.ts";
import { createToolRegistry, isToolRegistry } from "../src/tools.ts";

const noop = { execute: () => undefined };

describe("createToolRegistry", () => {
  it("finds registered tools by name", () => {
    const registry = createToolRegistry({ echo: noop });
    expect(registry.get("echo")).toBe(noop);
  });

  it("does not find Object.prototype members", () => {
    const registry = createToolRegistry({ echo: noop });
    expect(
      ["constructor", "toString", "__proto__", "valueOf"].map((name) => registry.get(name)),
    ).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("lists names sorted and describes each tool", () => {
    const registry = createToolRegistry({ b: { ...noop, description: "second" }, a: noop });
    expect(registry.names).toEqual(["a", "b"]);
    expect(registry.descriptions).toEqual([
      { name: "a", description: "" },
      { name: "b", description: "second" },
    ]);
  });

  it("rejects a tool without execute", () => {
    expect(() => createToolRegistry({ broken: {} as never })).toThrow(InvalidToolRegistryError);
  });

  it("rejects a name a model could not spell safely", () => {
    expect(() => createToolRegistry({ "rm -rf": noop })).toThrow(InvalidToolRegistryError);
  });
});

describe("isToolRegistry", () => {
  it("tells a registry from a plain tool set", () => {
    expect(isToolRegistry(createToolRegistry({ echo: noop }))).toBe(true);
    expect(isToolRegistry({ echo: noop })).toBe(false);
  });
});
