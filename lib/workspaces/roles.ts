import { z } from "zod";
import { roles } from "../access/role-names";

export { hasRole, roleDescriptions, roleLabels, roles } from "../access/role-names";

export const roleSchema = z.enum(roles);
