import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUser } from "@/lib/http/auth";
import { safeReturnPath } from "@/lib/http/return-path";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).callbackUrl);
  if (await currentUser()) redirect(returnTo);
  return (
    <main id="main" className="flex min-h-screen items-center justify-center bg-sidebar p-6">
      <div className="w-full max-w-sm">
        <div className="mb-6 text-center text-white">
          <div className="text-2xl font-semibold tracking-tight">Clawdeck</div>
          <p className="mt-1 text-sm text-sidebar-muted">The command centre for your team of AI agents</p>
        </div>
        <div className="card p-6">
          <h1 className="mb-4 text-lg font-semibold">Sign in</h1>
          <SignInForm returnTo={returnTo} />
        </div>
        <p className="mt-4 text-center text-xs text-sidebar-muted">
          First start? The owner&apos;s email and password were printed in the server&apos;s console.
        </p>
      </div>
    </main>
  );
}
