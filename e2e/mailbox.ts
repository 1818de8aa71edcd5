import fs from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";

/** What this worker's server has emailed (its test mail server keeps each message as a file). */
export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
}

const port = Number(process.env.E2E_PORT ?? 3100) + Number(process.env.TEST_PARALLEL_INDEX ?? 0);
const mailDir = path.resolve(`.test-data/e2e-${port}-mail`);

export function mailsTo(address: string): ReceivedMail[] {
  if (!fs.existsSync(mailDir)) return [];
  return fs
    .readdirSync(mailDir)
    .sort()
    .map((file) => JSON.parse(fs.readFileSync(path.join(mailDir, file), "utf8")) as ReceivedMail)
    .filter((mail) => mail.to.includes(address.toLowerCase()));
}

/** The first message to `address` whose subject matches, once it has arrived (the sweeper sends every 10 s). */
export async function mailTo(address: string, subject: RegExp, timeout = 40_000): Promise<ReceivedMail> {
  let found: ReceivedMail | undefined;
  await expect.poll(() => (found = mailsTo(address).find((m) => subject.test(m.subject))), { timeout, intervals: [1000] }).toBeTruthy();
  return found!;
}
