import { describe, expect, it } from "vitest";
import {
  agentIdCandidates,
  cutPreview,
  type HubError,
  isHubError,
  parseBearer,
  parseInput,
  createHumanInput,
  tokenKindOf,
} from "../src/index.ts";

describe("cutPreview (M §9.1: 200 code points, never inside one)", () => {
  it.each([
    ["short", "hello", "hello"],
    ["exactly 200", "a".repeat(200), "a".repeat(200)],
    ["201 cut to 200", "a".repeat(201), "a".repeat(200)],
    ["astral characters count as one", "😀".repeat(201), "😀".repeat(200)],
  ])("%s", (_name, body, expected) => {
    expect(cutPreview(body)).toBe(expected);
    expect(Array.from(cutPreview(body)).length).toBeLessThanOrEqual(200);
  });
});

describe("ids", () => {
  it.each([
    ["maintainer", "agent-a", "agt-a"],
    ["guest", "agent-x", "agt-x"],
    ["maintainer", "scout", "agt-scout"],
  ])("%s/%s → %s", (owner, handle, id) => {
    expect(agentIdCandidates(owner, handle)[0]).toBe(id);
  });
});

describe("tokens", () => {
  it.each([
    ["Bearer mty_abc", "mty_abc"],
    ["bearer bay_x", "bay_x"],
    ["Basic abc", null],
    ["Bearer", null],
    ["", null],
  ])("parseBearer(%j)", (header, token) => {
    expect(parseBearer(header)).toBe(token);
  });
  it("knows the two prefixes", () => {
    expect(tokenKindOf("mty_1")).toBe("human");
    expect(tokenKindOf("bay_1")).toBe("agent");
    expect(tokenKindOf("xyz")).toBeNull();
  });
});

describe("parseInput names every bad field (DESIGN §4)", () => {
  it("refuses whole with details.fields", () => {
    let error: unknown;
    try {
      parseInput(createHumanInput, { handle: "Bad Handle", password: "short" });
    } catch (e) {
      error = e;
    }
    expect(isHubError(error)).toBe(true);
    const hub = error as HubError;
    expect(hub.code).toBe("invalid");
    expect(Object.keys(hub.details.fields ?? {}).sort()).toEqual(["handle", "name", "password"]);
    expect(hub.details.fields?.name).toBe("required");
  });
});

describe("fieldsOf: a present value of the wrong type is not 'required'", () => {
  it("names the type problem", () => {
    let error: unknown;
    try {
      parseInput(createHumanInput, { handle: 7, name: "N", password: "long-enough" });
    } catch (e) {
      error = e;
    }
    expect((error as HubError).details.fields?.handle).not.toBe("required");
    expect((error as HubError).details.fields?.handle).toMatch(/string/);
  });
});
