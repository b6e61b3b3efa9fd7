#!/usr/bin/env bash
# A driver's delivery through the gateway alone, with curl (and jq to read the answers): a merchant
# creates a shipment that needs the recipient's PIN and a signature; a driver goes on shift, takes
# the offer, picks it up, uploads a photo of the signature and delivers with the PIN.
#
#   set -a; . .dev/credentials.env; set +a          # the sandbox merchant (make dev writes it)
#   pnpm tawsil drivers add --name "Test driver" --city RUH --carrier SAQR --vehicle CAR
#   DRIVER_CLIENT_ID=... DRIVER_CLIENT_SECRET=... examples/driver-delivery.sh
#
# With the sandbox fleet on, its drivers take the offer first: run `make dev` with
# SANDBOX_FLEET_ENABLED=false to be the only driver. Every answer of 400 or more stops the script
# and prints the problem.
set -euo pipefail

base=${TAWSIL_BASE_URL:?set TAWSIL_BASE_URL (from .dev/credentials.env)}
: "${TAWSIL_CLIENT_ID:?the merchant client id}" "${TAWSIL_CLIENT_SECRET:?the merchant client secret}" "${TAWSIL_SAVED_LOCATION:?the merchant saved pickup location}"
: "${DRIVER_CLIENT_ID:?the driver client id, from pnpm tawsil drivers add}" "${DRIVER_CLIENT_SECRET:?the driver client secret}"
signature=${SIGNATURE_PNG:-$(dirname "$0")/parcel-photo.png}
# Near the pickup, in Riyadh.
position='{"latitude": 24.7136, "longitude": 46.6753}'

token() { curl -sS --fail-with-body -u "$1:$2" -d grant_type=client_credentials "$base/oauth/token" | jq -r .access_token; }
call() { local bearer=$1; shift; curl -sS --fail-with-body -H "authorization: Bearer $bearer" "$@"; }
json() { call "$@" -H 'content-type: application/json'; }
key() { od -An -tx1 -N16 /dev/urandom | tr -d ' \n'; }
step() { json "$driver" -X POST -H "idempotency-key: $(key)" "$base/v2/driver/jobs/$shipment/steps" -d "$1"; echo; }

merchant=$(token "$TAWSIL_CLIENT_ID" "$TAWSIL_CLIENT_SECRET")
driver=$(token "$DRIVER_CLIENT_ID" "$DRIVER_CLIENT_SECRET")

echo "driver on shift: $(json "$driver" -X PUT "$base/v2/driver/availability" -d "{\"onShift\": true, \"position\": $position}")"

created=$(json "$merchant" -X POST "$base/v2/external/shipments" -d "{
  \"externalReference\": \"CURL-$(key | cut -c1-8)\",
  \"pickupLocationCode\": \"$TAWSIL_SAVED_LOCATION\",
  \"recipient\": {\"name\": \"Noura\", \"phone\": \"+966512345670\"},
  \"destination\": {\"latitude\": 24.774265, \"longitude\": 46.738586},
  \"items\": [{\"description\": \"Abaya\", \"quantity\": 1, \"weightKilograms\": 0.5}],
  \"requirements\": [\"PIN_ON_DELIVERY\", \"SIGNATURE_ON_DELIVERY\"]
}")
shipment=$(jq -r .shipmentId <<<"$created")
pin=$(jq -r .deliveryPin <<<"$created")
echo "shipment $shipment created; the recipient's PIN is $pin"

offer=""
for _ in $(seq 1 60); do
  offer=$(call "$driver" "$base/v2/driver/offers" | jq -r --arg s "$shipment" '.offers[] | select(.shipmentId == $s) | .offerId')
  [ -n "$offer" ] && break
  sleep 1
done
[ -n "$offer" ] || { echo "no offer for $shipment within 60 s" >&2; exit 1; }
echo "offer $offer: $(call "$driver" -X POST "$base/v2/driver/offers/$offer/accept")"

step '{"step": "PICKED_UP"}'
step '{"step": "OUT_FOR_DELIVERY"}'

asset=$(json "$driver" -X POST "$base/v2/driver/media-assets" \
  -d "{\"purpose\": \"DELIVERY_SIGNATURE\", \"contentType\": \"image/png\", \"sizeBytes\": $(wc -c <"$signature")}" | jq -r .mediaAssetId)
call "$driver" -X PUT -H 'content-type: image/png' --data-binary "@$signature" "$base/v2/driver/media-assets/$asset/content" >/dev/null
echo "signature $asset uploaded"

step "{\"step\": \"DELIVERED\", \"deliveryPin\": \"$pin\", \"evidenceMediaAssetIds\": [\"$asset\"]}"
call "$merchant" "$base/v2/external/shipments/$shipment" | jq -c '{state, timelineMedia}'
