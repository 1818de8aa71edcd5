// Resets a person's password from the shell and ends all their sessions.
//   npm run users:reset-password -- <email>
// The new password is read from CLAWDECK_NEW_PASSWORD, else from stdin when
// it is piped, else generated and printed once.
import { getEnv } from "../lib/env";
import { openDatabase, targetFromEnv, type DatabaseHandle } from "../lib/db/client";
import { resetPassword } from "../lib/auth/password-change";

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  const text = Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
  return text === "" ? undefined : text;
}

const email = process.argv[2];
let handle: DatabaseHandle | undefined;
try {
  if (!email) throw new Error("Usage: npm run users:reset-password -- <email>");
  const given = process.env.CLAWDECK_NEW_PASSWORD || (await readStdin());
  handle = await openDatabase(targetFromEnv(getEnv()));
  const { user, generated, endedSessions } = await resetPassword(handle.db, email, given);
  console.log(`Password reset for ${user.email}; ${endedSessions} session(s) ended.`);
  if (generated) console.log(`New password (shown once): ${generated}`);
} catch (error) {
  console.error(`Password reset failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await handle?.close();
}
