import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUser } from "@/lib/http/auth";
import { safeReturnPath } from "@/lib/http/return-path";
import { getServer } from "@/lib/server";
import { SignInForm } from "./sign-in-form";
import { ssoSignInAction } from "./actions";
import { signInErrorSentence } from "./sign-in-errors";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type Search = { callbackUrl?: string | string[]; error?: string | string[]; code?: string | string[] };
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export default async function SignInPage({ searchParams }: { searchParams: Promise<Search> }) {
  const search = await searchParams;
  const returnTo = safeReturnPath(search.callbackUrl);
  if (await currentUser()) redirect(returnTo);
  const providers = (await getServer()).env.oidcProviders;
  const refusal = signInErrorSentence(one(search.error), one(search.code), providers[0]?.label ?? null);
  return (
    <main id="main" className="flex min-h-screen items-center justify-center bg-sidebar p-6">
      <div className="w-full max-w-sm">
        <div className="mb-6 text-center text-white">
          <div className="text-2xl font-semibold tracking-tight">Clawdeck</div>
          <p className="mt-1 text-sm text-sidebar-muted">The command centre for your team of AI agents</p>
        </div>
        <div className="card p-6">
          <h1 className="mb-4 text-lg font-semibold">Sign in</h1>
          {refusal ? (
            <p role="alert" className="mb-4 rounded-md bg-rose-50 px-3 py-2 text-sm text-rose-700">
              {refusal}
            </p>
          ) : null}
          {providers.length > 0 ? (
            <div className="mb-4 space-y-2">
              {providers.map((p) => (
                <form key={p.id} action={ssoSignInAction}>
                  <input type="hidden" name="provider" value={p.id} />
                  <input type="hidden" name="callbackUrl" value={returnTo} />
                  <button type="submit" className="btn-secondary w-full">
                    Sign in with {p.label}
                  </button>
                </form>
              ))}
              <p className="pt-2 text-center text-xs text-slate-500">or with your email and password</p>
            </div>
          ) : null}
          <SignInForm returnTo={returnTo} />
        </div>
        <p className="mt-4 text-center text-xs text-sidebar-muted">
          First start? The owner&apos;s email and password were printed in the server&apos;s console.
        </p>
      </div>
    </main>
  );
}
