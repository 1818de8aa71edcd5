import { AccessDenied } from "@/components/shell/access-denied";

/** What a person without the role sees here; the page answers 403. */
export default function Forbidden() {
  return <AccessDenied code="forbidden:members" message="Only owners and managers of this workspace manage its members." />;
}
