import { expect, type Page, test } from "@playwright/test";
import { list, login } from "./helpers";

// The dashboard's screens at 1440×900 and 390×844, in light and in dark, on
// the demo data, kept as named files in e2e/artifacts/screens/ (docs/screens/ holds a copy of the
// current ones for docs/dashboard.md). Each screen is asserted before it is taken, so a screenshot
// of a broken page fails the test instead of being kept.

const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;
const THEMES = ["light", "dark"] as const;

const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/screens/${name}.png` });
const phoneBack = async (page: Page) => {
  // On a phone the list and the chat are two screens.
  const back = page
    .getByRole("link", { name: "Back to chats" })
    .or(page.getByRole("button", { name: "Back to chats" }));
  if (await back.isVisible()) await back.click();
};

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  for (const theme of THEMES) {
    test(`screens at ${size} ${viewport.width}×${viewport.height}, ${theme}`, async ({ browser }) => {
      test.setTimeout(120_000);
      const context = await browser.newContext({ viewport, colorScheme: theme });
      const page = await context.newPage();
      const name = (screen: string) => `${size}-${theme}-${screen}`;
      await page.goto("/login");
      await expect(page.getByRole("heading", { name: "Sign in to Maity" })).toBeVisible();
      await shot(page, name("login"));

      await login(page, "maintainer", "maintainer-demo");
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      const chat = list(page).getByRole("link", { name: /Release 0\.2 go\/no-go/ });
      await expect(chat).toBeVisible();
      await shot(page, name("list"));

      await chat.click();
      await expect(page.getByRole("heading", { name: /Release 0\.2 go\/no-go/ })).toBeVisible();
      // The demo's group chat shows who the hub asked to answer (routing made visible, 004 §4).
      await expect(page.getByRole("list", { name: "Messages" }).getByLabel("Routing").first()).toBeVisible();
      await shot(page, name("group-chat"));

      await phoneBack(page);
      await page.getByRole("button", { name: "New group chat" }).click();
      await expect(page.getByRole("dialog", { name: "New group chat" })).toBeVisible();
      await shot(page, name("new-group"));
      await page.keyboard.press("Escape");

      await page.getByRole("link", { name: "Your agents" }).click();
      await expect(page.getByRole("heading", { name: "Your agents" })).toBeVisible();
      await shot(page, name("agents"));
      await context.close();
    });
  }
}
