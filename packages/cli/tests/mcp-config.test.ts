/**
 * The two decisions of lesson 37 as the capstone makes them: what `mcpServers` accepts
 * (every key known, every value of its own type, server names that keep
 * `mcp__<server>__<tool>` unambiguous) and what the approval gate is asked about an MCP
 * call (`--allow-tool` matches the whole name only).
 */
import { describe, expect, it } from "vitest";
import { mcpApprovalCall, parseMcpServers } from "../src/mcp/index.ts";

const details = (value: unknown) => {
  const parsed = parseMcpServers(value, "mcp.json");
  return parsed.ok ? "" : parsed.details;
};

describe("parseMcpServers", () => {
  it("refuses a server name with __ or an _ at either end, and accepts single _ and -", () => {
    for (const name of ["a__b", "_a", "a_", "a b", "a.b"]) {
      expect(details({ [name]: { command: "x" } }), name).toContain(`mcpServers.${name}: 服务器名`);
    }
    const ok = parseMcpServers(
      { my_server: { command: "x" }, "git-hub": { url: "http://h/mcp" } },
      "f",
    );
    expect(ok.ok && ok.servers.map((server) => server.name)).toEqual(["my_server", "git-hub"]);
  });

  it("refuses an unknown key and a value of the wrong type, at its path, never coercing it", () => {
    expect(details({ s: { command: "x", arg: ["y"] } })).toContain(
      "mcpServers.s: 不认识的字段 arg",
    );
    expect(details({ s: 3 })).toContain("mcpServers.s: 需要对象");
    expect(details({ s: { url: "http://h/mcp", header: {} } })).toContain("mcpServers.s");
    expect(details({ s: { command: "x", args: [1] } })).toContain("mcpServers.s.args[0]");
    expect(details({ s: { command: "x", env: { A: true } } })).toContain("mcpServers.s.env.A");
    expect(details({ s: { url: "http://h/mcp", headers: { n: 1 } } })).toContain(
      "mcpServers.s.headers.n",
    );
    expect(details({ s: { type: "http", command: "x" } })).toContain("mcpServers.s.type");
  });
});

describe("mcpApprovalCall", () => {
  const tool = { name: "mcp__everything__get-sum", server: "everything" };

  it("asks the gate unless --allow-tool names the tool exactly", () => {
    expect(mcpApprovalCall(tool, { a: 1 }, ["mcp__everything__get-sum"])).toBeUndefined();
    for (const allowed of [
      "mcp__everything__get",
      "mcp__everything__",
      "mcp__everything__get-sum2",
      "",
    ]) {
      const call = mcpApprovalCall(tool, { a: 1 }, [allowed]);
      expect(call?.request.program, allowed).toBe("mcp__everything__get-sum");
      expect(call?.request.argv).toEqual(["mcp__everything__get-sum", '{"a":1}']);
    }
  });
});
