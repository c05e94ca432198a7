"""Allocates (and touches) memory until something stops it."""

hoard = []


def act(observation):
    while True:
        hoard.append(bytearray(b"\x01") * (8 << 20))
