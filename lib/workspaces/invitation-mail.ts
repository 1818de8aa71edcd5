/** The email an invitation sends: who invites whom to which workspace, with which role, and the link. */
import type { Mail } from "../mail/mailer";
import { roleDescriptions, roleLabels } from "../access/role-names";
import type { Role } from "../db/schema";

export function invitationMail(input: { to: string; inviter: { name: string; email: string }; workspaceName: string; role: Role; url: string; expiresAt: Date }): Mail {
  const role = roleLabels[input.role];
  const expires = input.expiresAt.toUTCString().replace(/ GMT$/, " UTC");
  return {
    to: input.to,
    subject: `${input.inviter.name} invited you to ${input.workspaceName} on Clawdeck`,
    text: [
      `${input.inviter.name} (${input.inviter.email}) invited you to the workspace “${input.workspaceName}” on Clawdeck, as ${/^[AEIOU]/.test(role) ? "an" : "a"} ${role}: ${roleDescriptions[input.role].toLowerCase()}.`,
      "",
      "Open this link to accept (you choose your password there, or sign in if you have an account):",
      input.url,
      "",
      `The link works once and expires on ${expires}.`,
      "If you were not expecting this, ignore this message: nothing happens unless the link is opened.",
    ].join("\n"),
  };
}
