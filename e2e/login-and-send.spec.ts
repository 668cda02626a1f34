import { expect, test } from "@playwright/test";

// A human logs in, sees the direct conversation with their agent (§9.1), posts through tRPC,
// and the agent's token reads the same message back over REST.
test("login, open the direct conversation, send; the agent reads it over REST", async ({ page, request }, info) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Handle").fill("maintainer");
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("form", { name: "Sign in" }).getByRole("alert")).toContainText(
    "wrong handle or password",
  );

  await page.getByLabel("Password").fill("maintainer-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Signed in as maintainer")).toBeVisible();

  const conversations = page.getByRole("navigation", { name: "Conversations" });
  await conversations.getByRole("link", { name: /maintainer\/agent-a/ }).click();
  await expect(page).toHaveURL(/\/p\/maintainer\/maity\/c\/agt-a$/);
  const timeline = page.getByRole("list", { name: "Messages" });
  await expect(timeline).toContainText("How far is the API contract?");

  const body = `Ship it? ${Date.now()}`;
  await page.getByRole("textbox", { name: "Message" }).fill(body);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(timeline).toContainText(body);
  await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
  await page.screenshot({ path: info.outputPath("slice.png"), fullPage: true });

  const minted = await request.post("/api/admin/tokens", {
    headers: { authorization: "Bearer e2e-admin-token" },
    data: { member_id: "agt-a" },
  });
  expect(minted.status()).toBe(201);
  const { token } = (await minted.json()) as { token: string };
  // The agent protocol answers on the same server: the agent confirms its identity first (B-012).
  const me = await request.get("/api/agent-api/me", { headers: { authorization: `Bearer ${token}` } });
  expect(await me.json()).toMatchObject({ id: "agt-a", name: "maintainer/agent-a", protocolVersion: "1.23" });
  const read = await request.get("/api/projects/maintainer/maity/conversations/agt-a/messages", {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(read.status()).toBe(200);
  const { items } = (await read.json()) as { items: { body: string; from: string }[] };
  expect(items.at(-1)).toMatchObject({ body, from: "hum-maintainer" });

  // Reload keeps the chat open (the URL names project and conversation).
  await page.reload();
  await expect(page.getByRole("list", { name: "Messages" })).toContainText(body);
});
