import { SERVICE_LEVELS, type ServiceLevel } from "@tawsil/domain";
import { onboardDriver, rotateOrIssue, type DriverAdmins } from "@tawsil/driver-onboarding";
import { ServiceLevel as ProtoServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { MerchantAdminService } from "@tawsil/proto/tawsil/merchant/v1/merchant_admin_service_pb";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import type { FleetAdmin } from "../app/ports";

const levelOf = (value: ProtoServiceLevel): ServiceLevel | undefined => SERVICE_LEVELS.find((level) => ProtoServiceLevel[level] === value);

/**
 * Fleet management through the services' admin listeners, as the operators' CLI does it: dispatch
 * registers, lists and counts the fleet's drivers, merchant issues their clients, shipment tells
 * the PIN. No service token: who reaches an admin listener is the operator (here, the sandbox's).
 */
export function fleetAdminOver(urls: { dispatch: string; merchant: string; shipment: string }, timeoutMs: number): FleetAdmin {
  const admins: DriverAdmins = { drivers: createPeerClient(DriverAdminService, urls.dispatch, { timeoutMs }), clients: createPeerClient(MerchantAdminService, urls.merchant, { timeoutMs }) };
  const shipments = createPeerClient(ShipmentAdminService, urls.shipment, { timeoutMs });
  return {
    async listFleetDrivers() {
      const { drivers } = await admins.drivers.listDrivers({ limit: 1000, sandboxFleet: true });
      return drivers.flatMap((driver) => {
        const vehicle = levelOf(driver.vehicle);
        return vehicle ? [{ driverId: driver.driverId, name: driver.name, onShift: driver.onShift, pair: { cityCode: driver.cityCode, carrierCode: driver.carrierCode, vehicle } }] : [];
      });
    },
    async onboard(name, pair) {
      const onboarded = await onboardDriver(admins, { name, cityCode: pair.cityCode, carrierCode: pair.carrierCode, vehicle: ProtoServiceLevel[pair.vehicle], sandboxFleet: true });
      return { driverId: onboarded.driver.driverId, name, pair, clientId: onboarded.clientId, clientSecret: onboarded.clientSecret };
    },
    async rotate(driver) {
      // The merchant service answers once the revocation's second has passed, so the new secret's
      // tokens are never taken for revoked ones (services/merchant/src/app/revocation-second.ts).
      // A driver left without a client by an onboarding cut short (the fleet stopped between its
      // two calls) gets its first one: rotating alone failed for it at every rebalance, forever.
      // It is registered: the fleet knows it from dispatch's list of its drivers.
      const { clientId, clientSecret } = await rotateOrIssue(admins.clients, driver.driverId, async () => undefined);
      return { driverId: driver.driverId, name: driver.name, pair: driver.pair, clientId, clientSecret };
    },
    async demand(recentMs) {
      const { services } = await admins.drivers.getFleetDemand({ recentMs });
      return services.flatMap((service) => {
        const vehicle = levelOf(service.vehicle);
        return vehicle ? [{ cityCode: service.cityCode, carrierCode: service.carrierCode, vehicle, onShift: service.onShift, free: service.free, waiting: service.waiting, waitingRecent: service.waitingRecent }] : [];
      });
    },
    async deliveryPin(shipmentId) {
      return (await shipments.getDeliveryProof({ shipmentId })).deliveryPin;
    },
  };
}
