/**
 * A token's `iat` is in whole seconds (RFC 7519 NumericDate; merchants' JWT libraries expect an
 * integer), and the gateway refuses a token issued at or before its client's revocation instant
 * (milliseconds). A token issued later in the revocation's own second would carry that second as
 * its `iat` and be refused for its whole life. So an operation that revokes returns only once that
 * second has passed: whatever its caller does next (use a rotated secret, enable the client again)
 * gets tokens stamped after the revocation. At most a second more on an operator's action.
 */
export async function revocationSecondPassed(now: () => number = Date.now): Promise<void> {
  const wait = 1_000 - (now() % 1_000);
  await new Promise((resolve) => setTimeout(resolve, wait));
}
