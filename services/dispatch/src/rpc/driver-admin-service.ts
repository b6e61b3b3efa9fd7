import type { ServiceImpl } from "@connectrpc/connect";
import { ServiceLevel as ProtoServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import type { DriverAdminService, RegisteredDriverSchema } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { withDomainErrors } from "@tawsil/rpc";
import type { Logger } from "@tawsil/logging";
import type { DriverAdmin } from "../app/driver-admin";
import type { RegisteredDriver } from "../app/ports";
import { SERVICE_LEVELS, type ServiceLevel } from "../domain/service-level";

const levelOf = (value: ProtoServiceLevel): ServiceLevel | undefined => SERVICE_LEVELS.find((level) => ProtoServiceLevel[level] === value);

function toProto(driver: RegisteredDriver): MessageInitShape<typeof RegisteredDriverSchema> {
  return { driverId: driver.id, name: driver.name, cityCode: driver.cityCode, carrierCode: driver.carrierCode, vehicle: ProtoServiceLevel[driver.serviceLevel], onShift: driver.available };
}

/** Operators' registry of drivers, on the admin listener only. Maps and delegates. */
export function driverAdminService(deps: { driverAdmin: DriverAdmin; logger: Logger }): ServiceImpl<typeof DriverAdminService> {
  const admin = deps.driverAdmin;
  return withDomainErrors(
    {
      async registerDriver(req) {
        return { driver: toProto(await admin.register({ name: req.name, cityCode: req.cityCode, carrierCode: req.carrierCode, serviceLevel: levelOf(req.vehicle), sandboxFleet: req.sandboxFleet })) };
      },
      async listDrivers(req) {
        return { drivers: (await admin.list(req.limit, req.sandboxFleet)).map(toProto) };
      },
      async getFleetDemand(req) {
        const demand = await admin.fleetDemand(new Date(), req.recentMs);
        return { services: demand.map(({ serviceLevel, ...rest }) => ({ ...rest, vehicle: ProtoServiceLevel[serviceLevel] })) };
      },
      async takeDriverOffShift(req) {
        return { driver: toProto(await admin.takeOffShift(req.driverId)) };
      },
    },
    { logger: deps.logger },
  );
}

