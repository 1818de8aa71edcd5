import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { users, type User } from "../db/schema";
import { hashPassword, verifyPassword } from "./passwords";

export const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email("Enter a valid email address"));
// bcrypt reads at most 72 bytes; a longer password would be silently truncated.
export const passwordSchema = z
  .string()
  .min(8, "Use at least 8 characters")
  .refine((v) => Buffer.byteLength(v, "utf8") <= 72, "Use at most 72 bytes");
export const personNameSchema = z.string().trim().min(1, "Enter a name").max(100);

export type PublicUser = Pick<User, "id" | "email" | "name">;

export async function getUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const [row] = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
    .limit(1);
  return row;
}

export async function getUserById(db: Db, id: string): Promise<PublicUser | undefined> {
  const [row] = await db.select({ id: users.id, email: users.email, name: users.name }).from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function createUser(db: Db, input: { email: string; name: string; password: string }): Promise<PublicUser> {
  const [row] = await db
    .insert(users)
    .values({ email: input.email.trim().toLowerCase(), name: input.name.trim(), passwordHash: await hashPassword(input.password) })
    .returning({ id: users.id, email: users.email, name: users.name });
  return row!;
}

/**
 * The stored "hash" of a person who has no password (made by single sign-on or by the identity provider's SCIM): no
 * password matches it, so such a person signs in only through their identity provider until one is set for them.
 */
export const NO_PASSWORD = "!no-password";

/** Makes a person who signs in through an identity provider only. */
export async function createUserWithoutPassword(db: Db, input: { email: string; name: string }): Promise<PublicUser> {
  const [row] = await db
    .insert(users)
    .values({ email: input.email.trim().toLowerCase(), name: input.name.trim(), passwordHash: NO_PASSWORD })
    .returning({ id: users.id, email: users.email, name: users.name });
  return row!;
}

// Compared against when the email is unknown or has no password, so a miss costs as long as a wrong password.
const DUMMY_HASH = "$2b$11$KW4tfemCbddKF0qt33lxuO1aynJkVCU7Jnj0Fp4q5XoJR4c2qcV.y";

export async function verifyCredentials(db: Db, email: string, password: string): Promise<PublicUser | null> {
  const user = await getUserByEmail(db, email);
  const hasPassword = user !== undefined && user.passwordHash !== NO_PASSWORD;
  const ok = await verifyPassword(password, hasPassword ? user.passwordHash : DUMMY_HASH);
  return user && hasPassword && ok ? { id: user.id, email: user.email, name: user.name } : null;
}

export async function countUsers(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return Number(row?.n ?? 0);
}

/** Replaces a user's password (the caller ends their sessions and records why). */
export async function setPassword(db: Db, userId: string, password: string): Promise<void> {
  await db.update(users).set({ passwordHash: await hashPassword(password) }).where(eq(users.id, userId));
}
