import type { Coordinate } from "@tawsil/domain";
import type { ServicePair } from "../domain/service-pair";

/** A shipment as an offer or a job shows it to the driver: what the simulation needs of it. */
export interface Delivery {
  readonly shipmentId: string;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  readonly requirements: readonly string[];
  /** The cash to collect in SAR; 0 when prepaid. */
  readonly codAmount: number;
}

export interface Offer extends Delivery {
  readonly offerId: string;
}

export interface Fix {
  readonly position: Coordinate;
  readonly recordedAtMs: number;
}

export type Step = { readonly step: "PICKED_UP" | "OUT_FOR_DELIVERY" } | { readonly step: "DELIVERY_FAILED"; readonly reasonCode: string } | { readonly step: "DELIVERED"; readonly proof: DeliveryProof };

export interface DeliveryProof {
  readonly deliveryPin?: string;
  readonly evidenceMediaAssetIds: readonly string[];
  readonly codCollected?: number;
}

/**
 * One driver's app on the gateway's driver routes, with its own credentials. Every method throws
 * RefusedError for an answer that is a refusal (the shipment moved on, the offer lapsed) and
 * anything else for an outage, which the driver retries.
 */
export interface DriverApp {
  setOnShift(onShift: boolean, position: Coordinate): Promise<void>;
  /** Oldest first, at most 100. */
  reportFixes(fixes: readonly Fix[]): Promise<void>;
  /** Answers with the open offers, or with none once `waitSeconds` passed (a long poll); `signal` ends it early. */
  offers(waitSeconds: number, signal: AbortSignal): Promise<Offer[]>;
  accept(offerId: string): Promise<void>;
  jobs(): Promise<Delivery[]>;
  /** `key`: one Idempotency-Key for a step across its retries. */
  reportStep(shipmentId: string, step: Step, key: string): Promise<void>;
  /** A generated image uploaded as the driver's own READY asset; its id. */
  uploadEvidence(purpose: "DELIVERY_SIGNATURE" | "DELIVERY_PHOTO"): Promise<string>;
}

/** A refusal that is not an outage: what was asked is not possible any more, and retrying will not change that. */
export class RefusedError extends Error {
  override readonly name = "RefusedError";
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`${status} ${code}`);
  }
}

/** A fleet driver as dispatch registered it, with a secret just issued or rotated (never logged). */
export interface FleetDriverAccount {
  readonly driverId: string;
  readonly name: string;
  readonly pair: ServicePair;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface PairDemandReport extends ServicePair {
  readonly onShift: number;
  readonly free: number;
  readonly waiting: number;
  /** Those of them created within the `recentMs` asked for. */
  readonly waitingRecent: number;
}

/** Fleet management through the admin listeners: never driving, which goes only through DriverApp. */
export interface FleetAdmin {
  /** The fleet's registered drivers (dispatch's sandboxFleet list), without credentials. */
  listFleetDrivers(): Promise<{ driverId: string; name: string; pair: ServicePair; onShift: boolean }[]>;
  /** Registers a fleet driver and issues its client. */
  onboard(name: string, pair: ServicePair): Promise<FleetDriverAccount>;
  /** A new secret for an existing driver's client (the old one is lost with the previous process). */
  rotate(driver: { driverId: string; name: string; pair: ServicePair }): Promise<FleetDriverAccount>;
  /** Every active carrier service in every city it serves. */
  demand(recentMs: number): Promise<PairDemandReport[]>;
  /** The PIN the recipient tells the driver at the door (sandbox only). */
  deliveryPin(shipmentId: string): Promise<string>;
}

/** The injected clock: the state machine's tests run it by hand. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** What the fleet reports to its metrics. */
export interface FleetMetrics {
  driversOnShift(count: number): void;
  driversBusy(count: number): void;
  deliveryFinished(outcome: "DELIVERED" | "DELIVERY_FAILED"): void;
  demandPolled(): void;
  reserveCalled(count: number): void;
}
