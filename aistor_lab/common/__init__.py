"""Plain helpers that several service packages share and none owns, with no HTTP and no store:
strict decoding of client JSON, and PyIceberg's file interface over bytes already read."""
