"""Model providers behind one small protocol, plus the router that makes them resilient."""
