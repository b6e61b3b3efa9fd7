/** The deployment a credential, a token issuer and a database belong to (decisions.md section 15). */
export const ENVIRONMENTS = ["sandbox", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
