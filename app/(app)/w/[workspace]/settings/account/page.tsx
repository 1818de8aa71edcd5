import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { ChangePasswordForm } from "@/components/account/change-password-form";

export const metadata: Metadata = { title: "Your account" };

export default async function AccountPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { user } = await requireWorkspacePage((await params).workspace);
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Your account</h1>
        <p className="mt-1 text-sm wrap-anywhere text-slate-600">
          Signed in as {user.name} ({user.email}). Changing your password signs out your other browsers.
        </p>
      </header>
      <ChangePasswordForm />
    </div>
  );
}
