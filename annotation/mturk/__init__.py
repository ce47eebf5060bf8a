"""MTurk round-1 verification: HIT files, the API path, review and gold."""
