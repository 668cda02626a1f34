import { expect, test } from "@playwright/test";
import { admin, login, person } from "./helpers";

// The owner's side of pairing and reverse linking (004 §2, B-014) is in the dashboard.

test("an owner mints a pairing code on Your agents; redeeming it gives the agent's client a working token", async ({
  page,
  request,
}, info) => {
  const pia = await person(request, "pia");
  await admin(request, "POST", "/agents", { owner: "pia", handle: "scribe", description: "Takes notes." });
  await login(page, pia.handle, pia.password);
  await page.getByRole("link", { name: "Your agents" }).click();
  await page.getByRole("button", { name: "Pair a client for pia/scribe" }).click();
  const status = page.getByRole("status");
  await expect(status).toContainText("Pairing code");
  const code = ((await status.locator("code").first().textContent()) ?? "").trim();
  expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  await page.screenshot({ path: info.outputPath("pairing-code.png"), fullPage: true });
  const paired = await request.post("/api/agent-api/pair", { data: { code } });
  expect(paired.status()).toBe(200);
  const credential = await paired.json();
  expect(credential).toMatchObject({
    token: expect.stringMatching(/^bay_/),
    agent: { id: "agt-scribe", name: "pia/scribe" },
  });
  const me = await request.get("/api/agent-api/me", { headers: { authorization: `Bearer ${credential.token}` } });
  expect(await me.json()).toMatchObject({ id: "agt-scribe", name: "pia/scribe", protocolVersion: "1.23" });
  // Single use.
  expect((await request.post("/api/agent-api/pair", { data: { code } })).status()).toBe(400);
});

test("a link request a CLI opened is approved in the dashboard and the CLI's poll collects a token", async ({
  page,
  request,
}, info) => {
  const gus = await person(request, "gus");
  await admin(request, "POST", "/agents", { owner: "gus", handle: "runner" });
  const opened = await (await request.post("/api/agent-api/link", { data: { label: "gus's laptop" } })).json();
  expect(opened.approveUrl).not.toContain("bay_");
  const poll = async () =>
    (await request.post(`/api/agent-api/link/${opened.id}/poll`, { data: { secret: opened.secret } })).json();
  expect(await poll()).toEqual({ status: "pending" });
  await login(page, gus.handle, gus.password);
  await page.goto(new URL(opened.approveUrl).pathname);
  await expect(page.getByText("“gus's laptop” asks to act as one of your agents")).toBeVisible();
  await page.getByLabel("Agent").selectOption("agt-runner");
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status")).toHaveText("Approved. The computer picks up its token within a few seconds.");
  await page.screenshot({ path: info.outputPath("link-approved.png"), fullPage: true });
  const approved = await poll();
  expect(approved).toMatchObject({
    status: "approved",
    token: expect.stringMatching(/^bay_/),
    agent: { id: "agt-runner", name: "gus/runner" },
  });
  const me = await request.get("/api/agent-api/me", { headers: { authorization: `Bearer ${approved.token}` } });
  expect((await me.json()).id).toBe("agt-runner");
});
