import { type APIRequestContext, expect, test } from "@playwright/test";
import { login } from "./helpers";
import { noSeriousAxe, shot, toast } from "./shots";

// Device login in the dashboard (issue 30, DESIGN §4e): a computer opens a login (as `maity login`
// does, no token); the demo's maintainer opens its approve URL, sees the label and the same code
// the computer got, and approves it for their own Bay with the keyboard alone; the computer's poll
// collects one `bay_u_` credential for that Bay. Your devices (on Your agents) lists the computer
// with its Bay; Sign out asks in the row (Escape keeps it), then the list no longer has it. A
// second login is denied and its poll says so; a wrong code says it is not there. Runs at 1440×900
// (light) and 390×844 (dark); screenshots go to e2e/artifacts/screens/ and docs/screens/.

test.describe.configure({ timeout: 120_000 });

type Opened = { id: string; secret: string; code: string; approveUrl: string; expiresAt: string };

/** What `maity login` does first: open a login request, no token. */
async function openLogin(request: APIRequestContext, label?: string): Promise<Opened> {
  const res = await request.post("/api/device-api/login", { data: label === undefined ? {} : { label } });
  expect(res.status(), await res.text()).toBe(201);
  return res.json();
}

/** The computer's poll with its secret. */
async function poll(request: APIRequestContext, opened: Opened) {
  const res = await request.post(`/api/device-api/login/${opened.id}/poll`, { data: { secret: opened.secret } });
  expect(res.status(), await res.text()).toBe(200);
  return res.json();
}

test("DESIGN §4e: a person approves a computer for their Bay, sees it among their devices and signs it out", async ({
  page,
  request,
}) => {
  const label = "e2e laptop";
  const opened = await openLogin(request, label);
  expect(opened.approveUrl).toMatch(new RegExp(`/device/${opened.code}$`));
  expect(await poll(request, opened)).toEqual({ status: "pending" });

  await login(page, "maintainer", "maintainer-demo");
  await page.goto(new URL(opened.approveUrl).pathname);
  const main = page.locator("main");
  await expect(main.getByRole("heading", { name: "Sign in a computer", level: 1 })).toBeVisible();
  await expect(main.getByText(label, { exact: true })).toBeVisible();
  await expect(main.getByText("Check that your terminal shows this code")).toBeVisible();
  await expect(main.getByTestId("device-code")).toHaveText(opened.code);
  await expect(main).toContainText(/Expires in (9|10) minutes/);

  // The own Bay is ticked; with none ticked Approve waits and says why.
  const form = main.getByRole("form", { name: "Sign this computer in" });
  const own = form.getByRole("checkbox", { name: /^maintainer/ });
  await expect(own).toBeChecked();
  const approve = form.getByRole("button", { name: "Approve" });
  await own.focus();
  await page.keyboard.press("Space");
  await expect(own).not.toBeChecked();
  await expect(approve).toHaveAttribute("aria-disabled", "true");
  await expect(form).toContainText("Choose at least one Bay");
  await page.keyboard.press("Space");
  await expect(own).toBeChecked();
  await expect(approve).toHaveAttribute("aria-disabled", "false");
  await shot(page, "devices-approve");
  await noSeriousAxe(page, "the device approve page");

  // Approve with the keyboard: Tab to Approve, Enter.
  await page.keyboard.press("Tab");
  await expect(approve).toBeFocused();
  await page.keyboard.press("Enter");
  const result = main.getByRole("status").filter({ hasText: "Signed in:" });
  await expect(result).toHaveText(
    "Signed in: e2e laptop can now act as you in maintainer. You can sign it out on Your devices.",
  );
  await expect(result).toBeFocused();

  // The computer's poll: one credential, for the maintainer's Bay; collected once.
  const approved = await poll(request, opened);
  expect(approved.status).toBe("approved");
  expect(approved.credentials).toHaveLength(1);
  expect(approved.credentials[0].bay.name).toBe("maintainer");
  expect(approved.credentials[0].token).toMatch(/^bay_u_/);

  // Opened again, the page says it was decided.
  await page.goto(new URL(opened.approveUrl).pathname);
  await expect(main.getByRole("alert")).toContainText("This computer was signed in already.");

  // Your devices: the computer with its Bay.
  await main.getByRole("link", { name: "Your devices" }).click();
  await expect(page).toHaveURL(/\/agents#devices$/);
  const section = page.getByRole("region", { name: "Your devices" });
  const row = section.getByRole("listitem").filter({ hasText: label });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Acts as you in maintainer");
  await expect(row).toContainText("Signed in just now · not used yet");
  await shot(page, "devices-list", section);
  await noSeriousAxe(page, "Your devices");

  // Sign out asks in the row; Escape keeps it and gives the focus back.
  const signOut = row.getByRole("button", { name: `Sign out ${label}` });
  await signOut.click();
  await expect(row).toContainText("Sign out e2e laptop? Its terminals stop acting as you at once");
  await row.getByRole("button", { name: "Keep" }).focus();
  await page.keyboard.press("Escape");
  await expect(signOut).toBeFocused();
  await expect(row.getByRole("button", { name: "Yes, sign out" })).toHaveCount(0);
  await page.keyboard.press("Enter");
  await row.getByRole("button", { name: "Yes, sign out" }).click();
  await expect(toast(page, `Signed out ${label}`)).toBeVisible();
  await expect(section.getByRole("listitem").filter({ hasText: label })).toHaveCount(0);
  await expect(section.getByRole("heading", { name: "Your devices" })).toBeFocused();
});

test("DESIGN §4e: a person denies a computer, and a wrong code is not there", async ({ page, request }) => {
  const opened = await openLogin(request);
  await login(page, "maintainer", "maintainer-demo");
  await page.goto(new URL(opened.approveUrl).pathname);
  const main = page.locator("main");
  await expect(main.getByText("A computer without a name")).toBeVisible();
  await expect(main.getByTestId("device-code")).toHaveText(opened.code);
  const deny = main.getByRole("button", { name: "Deny" });
  await deny.focus();
  await page.keyboard.press("Enter");
  await expect(main.getByRole("status").filter({ hasText: "Refused" })).toHaveText(
    "Refused: the computer was not signed in.",
  );
  expect(await poll(request, opened)).toEqual({ status: "denied" });

  // Approving it afterwards is refused in words (the page says where it stands).
  await page.goto(new URL(opened.approveUrl).pathname);
  await expect(main.getByRole("alert")).toContainText("was refused already");

  // A code nobody opened.
  await page.goto("/device/ZZZZ-ZZZZ-ZZZZ");
  await expect(main.getByRole("alert")).toContainText("This sign-in request is not there");
  await expect(main.getByRole("form")).toHaveCount(0);
  await noSeriousAxe(page, "a wrong device code");
});
