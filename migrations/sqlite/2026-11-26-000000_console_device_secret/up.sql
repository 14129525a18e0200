-- The key that signs the console's device cookies (issue 32; docs/api-decisions.md, "Console
-- sign-in under attack"). One row per purpose, written by the first instance that needs it
-- (INSERT ... ON CONFLICT DO NOTHING, then read back), so that every instance signs and checks
-- with the same key, and restarts keep the cookies valid. To rotate it, delete the row and
-- restart every instance (each keeps the key it read): every device cookie then counts as
-- none. Keep in step with migrations/postgres.
CREATE TABLE console_secrets (
    -- What the secret is for: 'device_cookies'.
    purpose    TEXT NOT NULL PRIMARY KEY,
    -- 256 random bits, 64 lower-case hex digits.
    secret_hex TEXT NOT NULL
);
