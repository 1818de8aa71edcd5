import { priceListSchema } from "@/lib/billing/billing-schemas";
import { route } from "@/lib/http/route";
import { getPriceList, updatePrices, updatePricesSchema } from "@/lib/billing/price-book";

export const GET = route({ can: "spend.read", response: priceListSchema }, async ({ db, workspace }) => getPriceList(db, workspace.id));

export const PUT = route({ can: "billing.manage", body: updatePricesSchema, response: priceListSchema }, async ({ db, workspace, user, body }) => updatePrices(db, workspace.id, user.id, body));
