-- Dispatch jobs written straight into the dispatch service's database (services/dispatch/prisma/
-- schema.prisma), as its shipment-event consumer would have created them for shipments ready for
-- dispatch (WAITING, no deadline) or unresolved (UNRESOLVED, deadline at the epoch: "retry with
-- any driver"). The city has no carrier service, so no simulated driver can ever take them: they
-- wait for a driver for as long as the measurement lasts. Update this file when that schema changes.
--   $1 shipment ids   $2 created_at of each   $3..$6 pickup lat/lon, destination lat/lon of each (micro-degrees)
--   $7 merchant id    $8 city code           $9 state (WAITING or UNRESOLVED)   $10 shipment version
INSERT INTO dispatch_job (
    shipment_id, merchant_id, city_code, service_level, pickup_latitude_micro, pickup_longitude_micro,
    destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm, requirements,
    cash_on_delivery, state, shipment_version, attempts, tried_driver_ids, deadline, created_at, updated_at)
SELECT id, $7::uuid, $8::text, NULL, plat, plon, dlat, dlon, 1000, 0, '{}',
    false, $9::dispatch_job_state, $10::bigint, 0, '{}',
    CASE WHEN $9::text = 'UNRESOLVED' THEN to_timestamp(0) END, created_at, created_at
FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::int[], $6::int[]) AS t(id, created_at, plat, plon, dlat, dlon)
