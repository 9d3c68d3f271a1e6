/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, one or more
 * spaces, no space inside the token); undefined for any other header or none.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}
