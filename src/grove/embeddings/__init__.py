"""Semantic session search: a small offline embedding model (the `[embeddings]` extra), message vectors in state.db
filled in the background, and the hybrid (full-text + meaning) search every entrance uses."""
