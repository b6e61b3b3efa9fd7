/** What every OAuth client id starts with (the merchant service issues them). */
export const CLIENT_ID_PREFIX = "tws_ci_";

/** The prefix, then 128 random bits as unpadded base64url: 22 characters. */
const CLIENT_ID = /^tws_ci_[A-Za-z0-9_-]{22}$/;

/**
 * True for a client id of the form the merchant service issues. The gateway answers anything
 * else at once (invalid_client, as for an unknown client), before a database query or a scrypt
 * verification is spent on it.
 */
export function isWellFormedClientId(value: string): boolean {
  return CLIENT_ID.test(value);
}
