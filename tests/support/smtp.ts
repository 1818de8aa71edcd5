import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll } from "vitest";

/**
 * A real SMTP server for the file's tests, listening on a free port: what it receives is kept in `received`, and
 * `refuse` names a recipient it refuses as a mailbox that does not exist. `env` gains `CLAWDECK_SMTP_URL` before the
 * tests start: hand it to `useTestServer` (declared after this call, so the server starts once the address is known).
 */
export function useSmtpServer(env: Record<string, string>) {
  const state = { received: [] as ParsedMail[], refuse: null as string | null };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === state.refuse) return callback(Object.assign(new Error("No such mailbox"), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          state.received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    env.CLAWDECK_SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  return state;
}
