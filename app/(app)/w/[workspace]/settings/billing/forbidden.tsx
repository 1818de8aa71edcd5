import { AccessDenied } from "@/components/shell/access-denied";

/** What a person without the role sees here; the page answers 403. */
export default function Forbidden() {
  return <AccessDenied code="forbidden:billing" message="Budgets and prices are shown to reviewers, managers and owners of this workspace." />;
}
