import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { apiKeys, memberships, users, workspaces, type Role } from "../db/schema";
import { hasRole } from "../access/role-names";
import { AppError } from "../errors";
import type { PublicUser } from "../workspaces/users";
import type { WorkspaceMembership } from "../workspaces/workspaces";
import type { ActingKey } from "../acting-key";
import { hashApiKey, looksLikeApiKey } from "./api-keys";

/** Who a request made with an API key acts as: the key's maker, in the key's workspace, with the lower of the two roles. */
export interface KeyAccess {
  key: ActingKey;
  user: PublicUser;
  workspace: WorkspaceMembership;
}

const refused = () => new AppError("unauthorized:api_key", "This API key is not valid: it was revoked, has expired, was typed wrong, or its maker has left the workspace.");

/** The API key of a request's `Authorization: Bearer ck_…` header, or null when the request carries none. */
export function bearerApiKey(req: Request): string | null {
  const header = req.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Checks a key in one query: it exists, is not revoked and has not expired, and its maker is still a member of its
 * workspace. The role is the key's, lowered to the maker's current role if they were demoted since. Marks the key used
 * (at most once a minute, so a busy script does not write on every request).
 */
export async function apiKeyAccess(db: Db, key: string): Promise<KeyAccess> {
  if (!looksLikeApiKey(key)) throw refused();
  const [row] = rowsOf<{
    id: string;
    name: string;
    key_role: Role;
    maker_id: string;
    maker_email: string;
    maker_name: string;
    workspace_id: string;
    workspace_slug: string;
    workspace_name: string;
    maker_role: Role | null;
    used_recently: boolean;
  }>(
    await db.execute(sql`
      select k.id, k.name, k.role as key_role, u.id as maker_id, u.email as maker_email, u.name as maker_name,
        w.id as workspace_id, w.slug as workspace_slug, w.name as workspace_name, m.role as maker_role,
        coalesce(k.last_used_at > now() - interval '1 minute', false) as used_recently
      from ${apiKeys} k
      join ${users} u on u.id = k.created_by
      join ${workspaces} w on w.id = k.workspace_id
      left join ${memberships} m on m.workspace_id = k.workspace_id and m.user_id = k.created_by
      where k.key_hash = ${hashApiKey(key)} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
      limit 1`),
  );
  if (!row || !row.maker_role) throw refused();
  if (!row.used_recently) await db.execute(sql`update ${apiKeys} set last_used_at = now() where id = ${row.id}`);
  const role = hasRole(row.maker_role, row.key_role) ? row.key_role : row.maker_role;
  return {
    key: { id: row.id, name: row.name, makerId: row.maker_id },
    user: { id: row.maker_id, email: row.maker_email, name: row.maker_name },
    workspace: { id: row.workspace_id, slug: row.workspace_slug, name: row.workspace_name, role },
  };
}
