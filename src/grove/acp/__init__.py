"""grove as an Agent Client Protocol agent: editors (Zed and others) drive grove sessions over stdio."""
