"""Spend caps: a persistent ledger that reserves before a model request and settles after."""
