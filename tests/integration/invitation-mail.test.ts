import { describe, expect, it } from "vitest";
import { GET as listInvitationsRoute, POST as inviteRoute } from "../../app/api/invitations/route";
import { demoOwner } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";
import { useSmtpServer } from "../support/smtp";

describe("invitations by email, through a real SMTP server", () => {
  const env: Record<string, string> = { CLAWDECK_MAIL_FROM: "Clawdeck at Example <deck@example.test>" };
  const smtp = useSmtpServer(env);
  const received = smtp.received;
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
    smtp.refuse = "nobody@example.test";
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
