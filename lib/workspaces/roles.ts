import { z } from "zod";
import { roles } from "./role-names";

export { hasRole, roleDescriptions, roleLabels, roles } from "./role-names";

export const roleSchema = z.enum(roles);
