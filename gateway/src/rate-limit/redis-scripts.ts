/**
 * The limits' algorithms as Redis scripts: the same arithmetic as token-bucket.ts,
 * sliding-window.ts and lockout.ts, in the same order (so the same answers: RateLimit headers and
 * Retry-After included), run atomically by Redis for every replica at once. Time is Redis's own
 * clock (TIME, in whole milliseconds as Date.now() gives them), so the replicas' clocks do not
 * matter; the tests replay the memory classes' sequences with a clock of their own (ARGV[1]).
 * Every key expires once its state would read as new, so nothing grows without bound. Floats are
 * stored with 17 significant digits: read back, they are the very doubles JavaScript computed.
 */

const CLOCK = `
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function exact(number) return string.format('%.17g', number) end
`;

/**
 * KEYS: per limit of the chain, one key (a lockout: its lock, then its failures).
 * ARGV[1]: the clock ('' for Redis's); then per limit four values: its kind ('bucket': capacity,
 * per second; 'window': limit, window ms; 'lockout': unused), padded with ''.
 * Returns {index of the refusing limit (0: none), allowed (0/1), remaining, retry-after s, reset s,
 * failures recorded for the chain's lockout key (0: none to forget)}.
 */
export const TAKE_CHAIN = `${CLOCK}
local function bucket(key, capacity, perSecond)
  local state = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = capacity
  if state[1] then
    tokens = math.min(capacity, tonumber(state[1]) + ((now - tonumber(state[2])) / 1000) * perSecond)
  end
  local allowed = tokens >= 1
  if allowed then tokens = tokens - 1 end
  redis.call('HSET', key, 'tokens', exact(tokens), 'at', exact(now))
  -- Once full again it reads as a new bucket does.
  redis.call('PEXPIRE', key, math.ceil((capacity - tokens) / perSecond * 1000) + 1000)
  local retryAfter = 0
  if not allowed then retryAfter = math.max(1, math.ceil((1 - tokens) / perSecond)) end
  return allowed, math.floor(tokens), retryAfter, math.ceil((capacity - tokens) / perSecond)
end

local function window(key, limit, windowMs)
  local oldest = redis.call('LINDEX', key, 0)
  while oldest and now - tonumber(oldest) >= windowMs do
    redis.call('LPOP', key)
    oldest = redis.call('LINDEX', key, 0)
  end
  local count = redis.call('LLEN', key)
  local allowed = count < limit
  if allowed then
    redis.call('RPUSH', key, exact(now))
    -- Once its newest request has left the window, the list is empty.
    redis.call('PEXPIRE', key, windowMs)
    count = count + 1
    if not oldest then oldest = exact(now) end
  end
  local untilOldestLeaves = 0
  if count > 0 then untilOldestLeaves = math.ceil((tonumber(oldest) + windowMs - now) / 1000) end
  local retryAfter = 0
  if not allowed then retryAfter = math.max(1, untilOldestLeaves) end
  return allowed, limit - count, retryAfter, untilOldestLeaves
end

local function lockedFor(lockKey)
  local untilMs = redis.call('GET', lockKey)
  if not untilMs or tonumber(untilMs) <= now then return 0 end
  return math.max(1, math.ceil((tonumber(untilMs) - now) / 1000))
end

local failures = 0
local key = 1
local result = {0, 1, 0, 0, 0}
for step = 1, (#ARGV - 1) / 4 do
  local at = 2 + (step - 1) * 4
  local kind = ARGV[at]
  local allowed, remaining, retryAfter, reset
  if kind == 'bucket' then
    allowed, remaining, retryAfter, reset = bucket(KEYS[key], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]))
    key = key + 1
  elseif kind == 'window' then
    allowed, remaining, retryAfter, reset = window(KEYS[key], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]))
    key = key + 1
  else
    local locked = lockedFor(KEYS[key])
    failures = redis.call('LLEN', KEYS[key + 1])
    allowed, remaining, retryAfter, reset = locked == 0, 0, locked, locked
    key = key + 2
  end
  result = {0, allowed and 1 or 0, remaining, retryAfter, reset}
  if not allowed then
    result[1] = step
    break
  end
end
result[6] = failures
return result
`;

/**
 * KEYS: a lockout's lock, then its failures. ARGV: the clock, max failures, window ms, lock ms.
 * The failures within the window, this one included, lock the key at maxFailures (lockout.ts).
 */
export const RECORD_FAILURE = `${CLOCK}
local maxFailures, windowMs, lockMs = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local oldest = redis.call('LINDEX', KEYS[2], 0)
while oldest and now - tonumber(oldest) >= windowMs do
  redis.call('LPOP', KEYS[2])
  oldest = redis.call('LINDEX', KEYS[2], 0)
end
if redis.call('RPUSH', KEYS[2], exact(now)) >= maxFailures then
  redis.call('SET', KEYS[1], exact(now + lockMs), 'PX', lockMs)
  redis.call('DEL', KEYS[2])
else
  redis.call('PEXPIRE', KEYS[2], windowMs)
end
return 0
`;
