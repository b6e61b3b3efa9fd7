import type { FastifyRequest } from "fastify";
import { ProblemError } from "../problem/problem-error";
import { isUuid } from "@tawsil/domain";

/** The `shipmentId` path parameter, lower-cased; a malformed uuid is a 400 INVALID_PARAMETER. */
export function shipmentIdOf(request: FastifyRequest): string {
  const id = (request.params as { shipmentId?: string }).shipmentId ?? "";
  if (!isUuid(id)) {
    throw new ProblemError("INVALID_PARAMETER", { en: "The shipment id in the path is not a uuid.", ar: "معرّف الشحنة في المسار ليس UUID صالحًا." });
  }
  return id.toLowerCase();
}
