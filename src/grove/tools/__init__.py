"""Tools the model can call: a registry of typed tools and one module per built-in toolset."""
