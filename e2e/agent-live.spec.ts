import { expect, test } from "@playwright/test";
import { admin, as, list, login } from "./helpers";

// An agent on the agent API (not Maity's routes) is seen live in the dashboard.

test("an agent writing over the agent API: its typing shows, then its message, live in the open chat", async ({
  page,
  request,
}, info) => {
  const { token } = await admin(request, "POST", "/tokens", { member_id: "agt-a" });
  const rooms = (await as(request, token, "GET", "/api/agent-api/conversations")).body.conversations as {
    id: string;
    type: string;
    maity: { project: string };
  }[];
  const dm = rooms.find((r) => r.type === "DM" && r.maity.project === "maintainer/maity")?.id as string;
  await login(page, "maintainer", "maintainer-demo");
  await list(page)
    .getByRole("link", { name: /maintainer\/agent-a/ })
    .click();
  await expect(page.getByRole("list", { name: "Messages" })).toContainText("How far is the API contract?");
  expect((await as(request, token, "POST", `/api/agent-api/conversations/${dm}/typing`)).status).toBe(200);
  await expect(page.locator("p.typing")).toHaveText("maintainer/agent-a is writing…");
  const content = `Sent over the agent API ${Date.now()}`;
  expect((await as(request, token, "POST", `/api/agent-api/conversations/${dm}/messages`, { content })).status).toBe(
    201,
  );
  await expect(page.getByRole("list", { name: "Messages" })).toContainText(content);
  await page.screenshot({ path: info.outputPath("agent-live.png"), fullPage: true });
});
