import { createServer } from "node:net";
import { type APIRequestContext, expect, type Page } from "@playwright/test";

// Setup through the operator routes of the running hub; each test builds the people it needs.
const ADMIN = { authorization: "Bearer e2e-admin-token" };

export async function admin(request: APIRequestContext, method: "POST" | "DELETE", path: string, data?: unknown) {
  const res = await request.fetch(`/api/admin${path}`, { method, headers: ADMIN, data });
  expect(res.status(), `${method} /api/admin${path}: ${await res.text()}`).toBeLessThan(300);
  return res.json();
}

/** A human with a project of its own (owner and members:admin), a token and a password. */
export async function person(request: APIRequestContext, handle: string) {
  await admin(request, "POST", "/humans", {
    handle,
    name: handle[0]?.toUpperCase() + handle.slice(1),
    password: `${handle}-password`,
  });
  const { token } = await admin(request, "POST", "/tokens", { member_id: `hum-${handle}` });
  return { id: `hum-${handle}`, handle, password: `${handle}-password`, token: token as string };
}

export async function as(request: APIRequestContext, token: string, method: string, path: string, data?: unknown) {
  const res = await request.fetch(path, { method, headers: { authorization: `Bearer ${token}` }, data });
  const text = await res.text();
  return { status: res.status(), body: text ? JSON.parse(text) : null };
}

export async function login(page: Page, handle: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Handle").fill(handle);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(`Signed in as ${handle}`)).toBeVisible();
}

export const list = (page: Page) => page.getByRole("list", { name: "Conversation list" });
export const titles = async (page: Page) =>
  (await list(page).locator("li.row .title").allInnerTexts()).map((t) => t.replace(/^📌\s*/, "").trim());

/** A port free on 127.0.0.1 now, for an app a spec starts itself. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}
