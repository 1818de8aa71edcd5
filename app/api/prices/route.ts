import { route } from "@/lib/http/route";
import { getPriceList, updatePrices, updatePricesSchema } from "@/lib/billing/price-book";

export const GET = route({ role: "reviewer" }, async ({ db, workspace }) => getPriceList(db, workspace.id));

export const PUT = route({ role: "manager", body: updatePricesSchema }, async ({ db, workspace, user, body }) => updatePrices(db, workspace.id, user.id, body));
