-- Shipments written straight into the shipment service's database (services/shipment/prisma/
-- schema.prisma; the row mapping is services/shipment/src/infra/shipment-rows.ts), one item each,
-- `$7` seconds apart with the newest at `$6`. Update this file when that schema changes.
--   $1 merchant id    $2 count           $3 state (shipment_state)   $4 version (the state's place in the lifecycle)
--   $5 pickup/destination city: 'RUH' (Riyadh, the demo location) or another code, placed at $8/$9 (micro-degrees)
--   $6 newest created_at   $7 seconds between two rows   $10 first shipment number (numbers run up from it)
--   $11 reference prefix
-- Returns each shipment's id, created_at and coordinates (what a dispatch job needs).
WITH rows AS (
    SELECT g, gen_random_uuid() AS id, $6::timestamptz - make_interval(secs => (g - 1) * $7::float8) AS created_at
    FROM generate_series(1, $2::int) AS g
), shipments AS (
    INSERT INTO shipment (
        id, shipment_number, merchant_id, external_reference, state, version, recipient_name, recipient_phone,
        total_weight_kilograms, declared_value, cod_amount, currency, payment_method, created_at, approved_at,
        pickup_latitude_micro, pickup_longitude_micro, pickup_address_line, pickup_city_code,
        destination_latitude_micro, destination_longitude_micro, destination_address_line, destination_city_code,
        requirements, rate_card_id, rate_card_version, service_level, price, distance_metres)
    SELECT id, 'TWS-' || lpad(($10::bigint + g)::text, 10, '0'), $1::uuid, $11::text || g, $3::shipment_state, $4::bigint,
        'Bench recipient', '+966512345678', 1.000, 0.00, 0.00, 'SAR', 'PREPAID'::payment_method, created_at, created_at,
        $8::int, $9::int, 'Bench pickup', $5::text,
        $8::int + 60665, $9::int + 63286, 'Bench destination', $5::text,
        '{}', '00000000-0000-4000-8000-00000000be0c', 1, 'BIKE', 28.75, 9120
    FROM rows
    RETURNING id, created_at, pickup_latitude_micro, pickup_longitude_micro, destination_latitude_micro, destination_longitude_micro
), items AS (
    INSERT INTO shipment_item (shipment_id, position, description, quantity, weight_kilograms)
    SELECT id, 0, 'Bench parcel', 1, 1.000 FROM rows
)
SELECT * FROM shipments
