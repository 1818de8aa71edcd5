import type { Browser, Page } from "@playwright/test";
import { newPerson } from "./fixtures";
import { MembersPage } from "./pages/members-page";
import { SignInPage } from "./pages/sign-in-page";

/** A person with the given role in the demo workspace (added by the owner), signed in in a fresh browser context. */
export async function personWithRole(browser: Browser, ownerPage: Page, role: "member" | "reviewer" | "manager") {
  const person = newPerson(role);
  await new MembersPage(ownerPage).goto("demo");
  await new MembersPage(ownerPage).add(person);
  const context = await browser.newContext();
  const page = await context.newPage();
  await new SignInPage(page).signInAs(person);
  return { person, context, page };
}
