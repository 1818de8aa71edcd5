import { AccessDenied } from "@/components/shell/access-denied";

/** What a person without the role sees here; the page answers 403. */
export default function Forbidden() {
  return <AccessDenied code="forbidden:role" message="Only owners of this workspace connect its identity provider." />;
}
