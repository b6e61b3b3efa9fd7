import { PermissionDeniedError } from "@tawsil/errors";

/** The shipment belongs to another merchant: ACCESS_DENIED, never a hint that it exists otherwise. */
export const accessDenied = () => new PermissionDeniedError("ACCESS_DENIED", "the shipment belongs to another merchant");
