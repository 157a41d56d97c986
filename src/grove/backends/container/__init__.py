"""The container backend: a Podman or Docker container per session, through the engine's CLI, the workspace
mounted into it, no network unless the session allows it, memory, process and CPU caps, removed on close."""
