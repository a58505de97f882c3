#!/usr/bin/env python3
"""What an identity provider sees from a fleet of N devices running latchkey: requests per second.

Three sources of requests, each simulated per device with a fixed seed (the output is the same on
every run), in one-second buckets over two hours, after every device booted at once (power
restored to a site, a fleet-wide firmware update):

- device-flow sign-in (RFC 8628): one device-authorization request, then a token poll every
  `interval` (5 s) until a person approves (exponential, mean 90 s, at most the 600 s expiry),
  then the final token request. Only at first sign-in or after a refresh token dies.
- refresh timer (device/systemd/latchkey-refresh.timer): OnBootSec=2min, OnUnitActiveSec=15min,
  each elapse delayed by a fresh uniform(0, RandomizedDelaySec); one token request per run.
- client-credentials renewal (`--flow client-credentials`, no refresh token): a new grant when
  the token is within `--min-ttl` (60 s) of its 3600 s lifetime, either on demand (the renewal
  time follows the boot time, so a fleet that booted together renews together, every hour), or
  driven by the refresh timer with RandomizedDelaySec=15min and `latchkey token --min-ttl 960`.

Devices come up within `boot_jitter` (30 s) of the power returning: the network is not instant.
Prints, for each N: the mean over the second hour (steady state), and the busiest second of the
first hour (the boot wave) and of the second hour (whether the wave comes back).

usage: fleet-load.py [N ...]   (default: 10 1000 100000)
"""
import math
import random
import sys

HORIZON = 7200           # seconds simulated
STEADY_FROM = 3600       # the mean is taken over [STEADY_FROM, HORIZON)
BOOT_JITTER = 30.0
DEVICE_INTERVAL = 5
DEVICE_EXPIRY = 600
APPROVAL_MEAN = 90.0
TIMER_BOOT, TIMER_PERIOD = 120.0, 900.0
TOKEN_LIFETIME, MIN_TTL = 3600.0, 60.0
SEED = 20261201


def device_flow(rng, boot):
    """Request times of one device-flow sign-in started at boot."""
    yield boot                                       # device_authorization
    approved = boot + min(rng.expovariate(1 / APPROVAL_MEAN), DEVICE_EXPIRY)
    t = boot + DEVICE_INTERVAL
    while t < approved and t < boot + DEVICE_EXPIRY:
        yield t                                      # authorization_pending
        t += DEVICE_INTERVAL
    if t < boot + DEVICE_EXPIRY:
        yield t                                      # the token


def refresh_timer(rng, boot, randomized_delay):
    """systemd: each elapse (OnBootSec, then OnUnitActiveSec after the last run) plus a fresh delay."""
    t = boot + TIMER_BOOT + rng.uniform(0, randomized_delay)
    while t < HORIZON:
        yield t
        t += TIMER_PERIOD + rng.uniform(0, randomized_delay)


def client_credentials_on_demand(rng, boot):
    """A grant at boot, then one whenever the token is within MIN_TTL of expiry."""
    t = boot
    while t < HORIZON:
        yield t
        t += TOKEN_LIFETIME - MIN_TTL


def client_credentials_from_timer(rng, boot):
    """A grant at boot, then renewed by the jittered timer once within 960 s of expiry."""
    expires = boot + TOKEN_LIFETIME
    yield boot
    for run in refresh_timer(rng, boot, TIMER_PERIOD):
        if expires - run <= 960:
            yield run
            expires = run + TOKEN_LIFETIME


SOURCES = [
    ("device-flow sign-in, interval 5 s", device_flow),
    ("refresh timer, RandomizedDelaySec=0", lambda rng, boot: refresh_timer(rng, boot, 0)),
    ("refresh timer, RandomizedDelaySec=60", lambda rng, boot: refresh_timer(rng, boot, 60)),
    ("refresh timer, RandomizedDelaySec=15min", lambda rng, boot: refresh_timer(rng, boot, 900)),
    ("client credentials, on demand", client_credentials_on_demand),
    ("client credentials, from the timer (15 min jitter)", client_credentials_from_timer),
]


def simulate(n, source, seed):
    rng = random.Random(seed)
    buckets = [0] * HORIZON
    for _ in range(n):
        boot = rng.uniform(0, BOOT_JITTER)
        for t in source(rng, boot):
            if t >= HORIZON:
                break
            buckets[int(t)] += 1
    steady = sum(buckets[STEADY_FROM:]) / (HORIZON - STEADY_FROM)
    return steady, max(buckets[:STEADY_FROM]), max(buckets[STEADY_FROM:])


def main(argv):
    sizes = [int(a) for a in argv] or [10, 1000, 100000]
    print(f"requests per second at the identity provider; all devices boot within {BOOT_JITTER:.0f} s of t=0")
    print(f"{'N':>7}  {'source':<50} {'mean, 2nd h':>11} {'peak 1 s, 1st h':>15} {'peak 1 s, 2nd h':>15}")
    for n in sizes:
        for index, (name, source) in enumerate(SOURCES):
            steady, first, second = simulate(n, source, SEED + index)
            print(f"{n:>7}  {name:<50} {steady:>11.2f} {first:>15} {second:>15}")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
