"""Cron: scheduled unattended sessions of the runtime (`grove cron`, the `cronjob` tool, `grove serve`).

The jobs and their at-most-once claims live in state.db (grove.store.cron_jobs); this package runs them.
"""
