/**
 * Whether a request's chain came through the door. The token's maker is the person behind it, and an outside agent
 * holds the token: the maker never approves it, whatever its category (four eyes always applies). No database here:
 * the browser reads it too.
 */
export const cameThroughDoor = (via: readonly string[]) => via.some((hop) => hop.startsWith("door:"));
