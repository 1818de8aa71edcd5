import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { EscalationForm, NotificationPrefsForm, PushBrowsers, RecentDeliveries, SlackLinkPanel } from "@/components/settings/notification-settings";

export const metadata: Metadata = { title: "Notifications" };

export default async function NotificationsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Notifications</h1>
        <p className="mt-1 text-sm text-slate-600">How you hear about agent actions waiting for a decision in {workspace.name}, without keeping the inbox open.</p>
      </header>
      <NotificationPrefsForm />
      {can(workspace.role, "approvals.decide") ? (
        <>
          <PushBrowsers />
          <SlackLinkPanel />
        </>
      ) : null}
      <EscalationForm canEdit={can(workspace.role, "policy.manage")} />
      {can(workspace.role, "approvals.decide") ? <RecentDeliveries /> : null}
    </div>
  );
}
