"use server";

import { signOut } from "@/lib/http/auth";

export async function signOutAction() {
  await signOut({ redirectTo: "/sign-in" });
}
