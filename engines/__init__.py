"""Hanamichi's pure game engines: no IO, no clock, no randomness of their own."""
