/** Settings every process of the bench's mesh gets on top of `make dev`'s. */
export const BENCH_ENV = {
  // The gateway's per-client limits (decisions.md section 14), raised so they never answer 429.
  RATE_LIMIT_PER_SECOND: "1000000",
  RATE_LIMIT_BURST: "1000000",
  TOKEN_RATE_LIMIT_PER_MINUTE: "1000",
  TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "1000",
  // Every public tracking read of the bench comes from one address: 600 a minute would refuse
  // nearly all of the tracking scenario (links rotate to stay under each link's own limit).
  PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "100000000",
  // The sandbox fleet process, on as in `make dev` (said explicitly: the idle figures are about it).
  SANDBOX_FLEET_ENABLED: "true",
  // ...but not growing with the create scenario's thousands of shipments: its drivers' deliveries,
  // served by the mesh, would run through every later scenario and count in its CPU per request.
  // At its baseline it delivers at the pace the figures were always taken at (two drivers a pair).
  FLEET_MAX_DRIVERS_PER_SERVICE: "2",
};
