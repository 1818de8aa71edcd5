import { scimRoute } from "@/lib/http/scim-route";
import { serviceProviderConfig } from "@/lib/scim/discovery";

export const dynamic = "force-dynamic";

export const GET = scimRoute(async ({ scope }) => ({ body: serviceProviderConfig(scope.baseUrl) }));
