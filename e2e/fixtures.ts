export const OWNER = { email: "owner@e2e.test", password: "owner-e2e-password", name: "Owner" };

let n = 0;
/** A person with a unique email for one test. */
export function newPerson(role: string) {
  n += 1;
  const id = `${Date.now().toString(36)}${n}`;
  return { email: `${role}-${id}@e2e.test`, name: `${role[0]!.toUpperCase()}${role.slice(1)} ${id}`, password: `pw-${id}-secret`, role };
}

/**
 * The app's origin, as a script calling the API must send it: writes without
 * an `Origin` (or a browser's `Sec-Fetch-Site: same-origin`) are refused.
 */
export const APP_ORIGIN = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100) + Number(process.env.TEST_PARALLEL_INDEX ?? 0)}`;
