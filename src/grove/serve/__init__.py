"""`grove serve`: an OpenAI-compatible HTTP API (chat completions, models, responses) over grove sessions, with
client keys, rate limits and an approval queue the dashboard answers."""
