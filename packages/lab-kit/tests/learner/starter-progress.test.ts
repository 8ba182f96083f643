import { describe, expect, it } from "vitest";
import { releaseInOrder } from "../../src/learner/starter-progress.ts";

describe("releaseInOrder", () => {
  it("holds a lesson that finishes early until every lesson before it has finished", () => {
    const release = releaseInOrder(["01", "02", "03", "04"]);
    expect(release("03")).toEqual([]);
    expect(release("02")).toEqual([]);
    expect(release("01")).toEqual(["01", "02", "03"]);
    expect(release("04")).toEqual(["04"]);
  });

  it("gives the same order whatever order the lessons finish in", () => {
    const orders = [
      ["01", "02", "03"],
      ["03", "01", "02"],
      ["02", "03", "01"],
    ];
    for (const order of orders) {
      const release = releaseInOrder(["01", "02", "03"]);
      expect(order.flatMap((id) => release(id))).toEqual(["01", "02", "03"]);
    }
  });
});
