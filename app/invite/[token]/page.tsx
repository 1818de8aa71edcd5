import type { Metadata } from "next";
import Link from "next/link";
import { isAppError } from "@/lib/errors";
import { currentUser } from "@/lib/http/auth";
import { getServer } from "@/lib/server";
import { previewInvitation, type InvitationPreview } from "@/lib/workspaces/invitations";
import { roleDescriptions, roleLabels } from "@/lib/access/role-names";
import { JoinForm, NewAccountForm } from "./accept-forms";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

/** The page an invitation link opens; outside the signed-in app, for new and existing people alike. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const { db } = await getServer();
  let invitation: InvitationPreview | undefined;
  let problem: string | undefined;
  try {
    invitation = await previewInvitation(db, token);
  } catch (error) {
    if (!isAppError(error)) throw error;
    problem = error.message;
  }
  const user = invitation ? await currentUser() : null;
  return (
    <main id="main" className="flex min-h-screen items-center justify-center bg-sidebar p-6">
      <div className="w-full max-w-sm">
        <div className="mb-6 text-center text-2xl font-semibold tracking-tight text-white">Clawdeck</div>
        <div className="card space-y-4 p-6">
          {!invitation ? (
            <>
              <h1 className="text-lg font-semibold">This invitation cannot be used</h1>
              <p role="alert" className="text-sm text-slate-600">
                {problem}
              </p>
              <Link href="/" className="text-sm text-sky-700 underline">
                Go to Clawdeck
              </Link>
            </>
          ) : (
            <>
              <h1 className="text-lg font-semibold">Join {invitation.workspaceName}</h1>
              <p className="text-sm text-slate-600" data-testid="invitation-from">
                {invitation.invitedBy ? (
                  <>
                    <span className="font-medium">{invitation.invitedBy}</span> invited you to {invitation.workspaceName} as{" "}
                  </>
                ) : (
                  <>You are invited to {invitation.workspaceName} as </>
                )}
                <span className="font-medium">{roleLabels[invitation.role]}</span> ({roleDescriptions[invitation.role].toLowerCase()}).
              </p>
              {user ? (
                <>
                  <p className="text-sm text-slate-600">
                    You are signed in as <span className="font-medium">{user.email}</span>; joining adds this account.
                  </p>
                  <JoinForm token={token} workspaceName={invitation.workspaceName} />
                </>
              ) : (
                <>
                  <NewAccountForm token={token} email={invitation.email} />
                  <p className="text-center text-sm text-slate-600">
                    Already have an account?{" "}
                    <Link href={`/sign-in?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`} className="text-sky-700 underline">
                      Sign in to join with it
                    </Link>
                  </p>
                </>
              )}
            </>
          )}
        </div>
      </div>
    </main>
  );
}
