import { FailedPreconditionError, NotFoundError } from "@tawsil/errors";

/** The reasons of driver-facing failures (driver_service.proto). */
export const offerNotFound = () => new NotFoundError("offer");
export const driverNotFound = () => new NotFoundError("driver");
export const offerNotOpen = () => new FailedPreconditionError("OFFER_NOT_OPEN", "the offer is no longer open (expired, declined or taken)");
export const notAssigned = () => new FailedPreconditionError("NOT_ASSIGNED", "the shipment is not the driver's");
export const stepNotAllowed = () => new FailedPreconditionError("STEP_NOT_ALLOWED", "the shipment's state does not allow this step");
