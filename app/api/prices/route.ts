import { priceListSchema } from "@/lib/billing/billing-schemas";
import { route } from "@/lib/http/route";
import { getPriceList, updatePrices, updatePricesSchema } from "@/lib/billing/price-book";

export const GET = route(
  { doc: { summary: "prices in US$ per million tokens (at most six decimals)" }, can: "spend.read", response: priceListSchema },
  async ({ db, workspace }) => getPriceList(db, workspace.id),
);

export const PUT = route(
  { doc: { summary: "a workspace price for a model id or prefix beats the built-in list; compute is US$ per second of an agent's computer" }, can: "billing.manage", body: updatePricesSchema, response: priceListSchema },
  async ({ db, workspace, user, body }) => updatePrices(db, workspace.id, user.id, body),
);
