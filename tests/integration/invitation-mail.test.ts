import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listInvitationsRoute, POST as inviteRoute } from "../../app/api/invitations/route";
import { demoOwner } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

describe("invitations by email, through a real SMTP server", () => {
  const received: ParsedMail[] = [];
  /** The next recipient the server refuses, as a mailbox that does not exist. */
  let refuse: string | null = null;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === refuse) return callback(Object.assign(new Error("No such mailbox"), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  const env: Record<string, string> = { CLAWDECK_MAIL_FROM: "Clawdeck at Example <deck@example.test>" };
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    env.CLAWDECK_SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));
  const server = useTestServer({ env });

  it("emails the link: who invites whom to which workspace as which role, from the configured sender", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const res = await inviteRoute(jsonRequest("/api/invitations", { method: "POST", cookie, body: { email: "rita@example.test", role: "reviewer" } }));
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ emailed: true, emailError: null });
    const mail = received.find((m) => m.to && JSON.stringify(m.to).includes("rita@example.test"));
    expect(mail?.from?.value).toEqual([{ name: "Clawdeck at Example", address: "deck@example.test" }]);
    expect(mail?.subject).toBe(`${owner.name} invited you to Demo on Clawdeck`);
    expect(mail?.text).toContain(`${owner.name} (${owner.email}) invited you to the workspace “Demo” on Clawdeck, as a Reviewer: decides gated agent actions.`);
    // The link in the message is the one the inviter was shown, whole (no line break inside it).
    expect(mail?.text?.split("\n")).toContain(body.url);
  });

  it("a send the server refuses is said in a sentence; the invitation and its link stand", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    refuse = "nobody@example.test";
    const before = received.length;
    const res = await inviteRoute(jsonRequest("/api/invitations", { method: "POST", cookie, body: { email: "nobody@example.test", role: "member" } }));
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ emailed: false, emailError: "The mail server refused the address." });
    expect(body.url).toMatch(/\/invite\/[A-Za-z0-9_-]{32,}$/);
    expect(received.length).toBe(before);
    const pending = await (await listInvitationsRoute(jsonRequest("/api/invitations", { cookie }))).json();
    expect(pending.invitations.map((i: { email: string }) => i.email)).toContain("nobody@example.test");
  });
});
