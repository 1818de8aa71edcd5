import { requireWorkspacePage } from "@/lib/http/page";
import { AppShell } from "@/components/shell/app-shell";

export const dynamic = "force-dynamic";

export default async function WorkspaceLayout({
  children,
  params,
}: {
  children: React.ReactNode;
  params: Promise<{ workspace: string }>;
}) {
  const page = await requireWorkspacePage((await params).workspace);
  return <AppShell page={page}>{children}</AppShell>;
}
