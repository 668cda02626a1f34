import { type Browser, expect, type Page, test } from "@playwright/test";
import { login } from "./helpers";
import { noSeriousAxe, shot, toast } from "./shots";

// Invite links in the dashboard (issue 29, DESIGN §4c): the demo's maintainer makes one on
// maintainer/maity's People page and copies it (shown once); a person with no account opens it in a
// fresh browser, sees where it leads, signs up (a taken handle refused at the field) and lands in
// the project signed in; opened again, the link says they are a member already and spends nothing;
// the People page counts 1 use; revoked, the link says so; a wrong code says "not valid" and names
// no project. Runs at 1440×900 (light) and 390×844 (dark); screenshots go to e2e/artifacts/screens/
// and docs/screens/. The e2e hub's data persists across specs: every run signs up its own person.

test.describe.configure({ timeout: 120_000 });

/** A short name no other run of this hub used. */
const fresh = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 100)}`;

/** A browser nobody signed in to, of the same size and theme as the test's. */
async function stranger(browser: Browser, page: Page, baseURL: string | undefined) {
  const colorScheme = test.info().project.use.colorScheme ?? "light";
  const context = await browser.newContext({ baseURL, viewport: page.viewportSize(), colorScheme });
  return { context, page: await context.newPage() };
}

test("DESIGN §4c: an admin makes an invite link; a newcomer signs up with it and joins; revoked, it says so", async ({
  page,
  context,
  browser,
  baseURL,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await login(page, "maintainer", "maintainer-demo");
  await page.goto("/p/maintainer/maity/people");
  const section = page.getByRole("region", { name: "Invite links" });
  await expect(section.getByRole("heading", { name: "Invite links" })).toBeVisible();

  // Make one: 30 days, 10 people; the link is shown once, with Copy.
  await section.getByLabel("Works for").selectOption({ label: "30 days" });
  await expect(section.getByLabel("Lets in")).toHaveValue("10");
  await section.getByRole("button", { name: "Make invite link" }).click();
  const made = section.getByRole("status");
  await expect(made).toContainText("Shown only now");
  const link = ((await made.locator("code").textContent()) ?? "").trim();
  expect(link).toMatch(new RegExp(`^${baseURL}/invite/inv_[A-Za-z0-9_-]+$`));
  await made.getByRole("button", { name: "Copy the invite link" }).click();
  await expect(toast(page, "Invite link copied")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  const row = section.getByRole("list", { name: "Invite links" }).getByRole("listitem").first();
  await expect(row).toContainText("0 of 10 used");
  await expect(row).toContainText("valid");
  await expect(row).toContainText("Made by Maintainer");
  await shot(page, "invite-people", section);
  await noSeriousAxe(page, "People page, a new invite link");

  // A stranger opens it: where it leads, and the sign-up form.
  const newcomer = await stranger(browser, page, baseURL);
  const them = newcomer.page;
  await them.goto(link);
  await expect(
    them.getByRole("heading", { name: "You're invited to Maity (maintainer/maity)", level: 1 }),
  ).toBeVisible();
  const form = them.getByRole("form", { name: "Sign up" });
  await expect(form).toBeVisible();
  await expect(them.getByRole("link", { name: "I have an account — sign in" })).toHaveAttribute("href", "/login");

  // A taken handle is refused at the field; the keyboard alone signs up.
  const handle = fresh("newbie");
  await form.getByLabel("Handle").fill("guest");
  await form.getByLabel("Your name").fill("Nova Newcomer");
  await form.getByLabel("Password").fill("nova-password-1");
  await shot(them, "invite-signup");
  await noSeriousAxe(them, "the invite page, signed out");
  await form.getByLabel("Password").press("Enter");
  await expect(form.getByLabel("Handle")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByRole("alert")).toHaveText("Somebody already has this handle: choose another.");
  await form.getByLabel("Handle").fill(handle);
  await them.keyboard.press("Tab");
  await expect(form.getByLabel("Your name")).toBeFocused();
  await them.keyboard.press("Tab");
  await expect(form.getByLabel("Password")).toBeFocused();
  await them.keyboard.press("Enter");

  // Signed in, one of the project's people.
  await expect(them).toHaveURL("/p/maintainer/maity/people");
  await expect(them.getByText(`Signed in as ${handle}`)).toBeVisible();
  await expect(them.getByRole("heading", { name: "People of Maity", level: 1 })).toBeVisible();
  await expect(
    them.getByRole("list", { name: "Members" }).getByRole("listitem").filter({ hasText: "Nova Newcomer" }),
  ).toContainText("you");

  // Opened again, signed in: Join, and they are a member already (nothing spent).
  await them.goto(link);
  await them.getByRole("button", { name: "Join Maity" }).click();
  await expect(them.getByRole("status")).toContainText("You're already a member of Maity.");
  await expect(them.getByRole("link", { name: "Go to Maity" })).toHaveAttribute("href", "/p/maintainer/maity/people");

  // The People page counts one use; the admin revokes it (confirmed in the row).
  await page.reload();
  await expect(row).toContainText("1 of 10 used");
  await row.getByRole("button", { name: /^Revoke the invite link/ }).click();
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(toast(page, "Invite link revoked")).toBeVisible();
  await expect(row).toContainText("revoked");
  await expect(row.getByRole("button", { name: /^Revoke/ })).toHaveCount(0);
  await expect(section.getByRole("heading", { name: "Invite links" })).toBeFocused();

  // Revoked: the link says so, and nothing about the project.
  const later = await stranger(browser, page, baseURL);
  await later.page.goto(link);
  const main = later.page.locator("main");
  await expect(main.getByRole("alert")).toHaveText("This invite was revoked — ask the project's people for a new one.");
  await expect(main).not.toContainText("maintainer/maity");
  await expect(main.getByRole("form", { name: "Sign up" })).toHaveCount(0);

  // A wrong code: not valid, no project name.
  await later.page.goto("/invite/inv_this-is-not-a-real-code");
  await expect(main.getByRole("alert")).toContainText("This invite link is not valid");
  await expect(main).not.toContainText("maintainer/maity");
  await expect(main).not.toContainText("invited to");
  await later.context.close();
  await newcomer.context.close();
});
