-- Shipments of one merchant for the baseline's list and read, one item each, one second apart,
-- newest at $3. $1 merchant, $2 count, $3 newest created_at. Returns the ids.
WITH rows AS (
    SELECT g, gen_random_uuid() AS id, $3::timestamptz - make_interval(secs => g) AS created_at
    FROM generate_series(1, $2::int) AS g
), shipments AS (
    INSERT INTO shipment (id, shipment_number, merchant_id, external_reference, state, version, recipient_name, recipient_phone,
        total_weight_kilograms, cod_amount, currency, pickup_latitude_micro, pickup_longitude_micro, pickup_address_line,
        pickup_city_code, destination_latitude_micro, destination_longitude_micro, destination_city_code, price, distance_metres, created_at)
    SELECT id, 'TWS-' || lpad(g::text, 10, '0'), $1::uuid, 'BENCH-SEED-' || g, 'DELIVERED', 7, 'Bench recipient', '+966512345678',
        1.000, 0.00, 'SAR', 24713600, 46675300, 'King Fahd Road, Al Olaya, Riyadh', 'RUH', 24774265, 46738586, 'RUH', 28.75, 9120, created_at
    FROM rows
    RETURNING id
), items AS (
    INSERT INTO shipment_item (shipment_id, position, description, quantity, weight_kilograms)
    SELECT id, 0, 'Bench parcel', 1, 1.000 FROM rows
)
SELECT id FROM shipments
