// A workspace's single sign-on settings as the API and the settings page see them. No database here: the browser imports it.
import { z } from "zod";

// Never owner: a domain is a door anyone with an address there walks through.
export const domainRoleSchema = z.enum(["manager", "reviewer", "member"]);

export const ssoDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "Enter a domain such as example.com");

export const ssoBodySchema = z.strictObject({
  required: z.boolean(),
  domains: z
    .array(z.strictObject({ domain: ssoDomainSchema, role: domainRoleSchema }))
    .max(50)
    .refine((list) => new Set(list.map((d) => d.domain)).size === list.length, "Each domain may be listed once"),
});
export type SsoBody = z.infer<typeof ssoBodySchema>;

export const ssoStateSchema = ssoBodySchema.extend({
  /** The identity providers this server offers (`CLAWDECK_OIDC_<NAME>_…`). */
  providers: z.array(z.object({ id: z.string(), label: z.string() })),
  /** Whether the person asking has signed in through one of them (needed before requiring SSO). */
  linked: z.boolean(),
});
export type SsoState = z.infer<typeof ssoStateSchema>;
