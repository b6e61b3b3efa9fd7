import { z } from "zod";

const REASON = /^[A-Z][A-Z0-9_]{1,47}$/;

/** Cancel, shape A: `{reason}`. */
export const cancelABody = z.strictObject({ reason: z.string().regex(REASON) });
/** Cancel, shape B: `{reasonCode}`. */
export const cancelBBody = z.strictObject({ reasonCode: z.string().regex(REASON) });
