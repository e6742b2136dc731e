-- Second factors for console accounts: an authenticator app (TOTP, RFC 6238) and single-use
-- recovery codes, required per role.

-- Which roles must sign in with a second factor (space-separated role names; empty: none).
ALTER TABLE console_sign_in ADD COLUMN second_factor_roles TEXT NOT NULL DEFAULT '';

-- The authenticator of an account, stored once its first code confirmed it (a setup under way
-- lives in the browser's server-side session only). The secret is sealed with the master key
-- (the user id as associated data). `last_step` is the newest time step accepted, so a code is
-- never accepted twice.
CREATE TABLE user_totp (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    sealed_secret BLOB NOT NULL,
    confirmed_at BIGINT NOT NULL,
    last_step BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);

-- Recovery codes (SHA-256 of 80 random bits each), each accepted once.
CREATE TABLE user_recovery_codes (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    used_at BIGINT,
    PRIMARY KEY (user_id, code_hash)
);

-- What an SSO provider's ID token must show for a role that needs a second factor: one of these
-- `amr` values, or one of these `acr` values (space-separated; both empty: the account enrols
-- an authenticator app at Portcullis instead).
ALTER TABLE sso_providers ADD COLUMN second_factor_amr TEXT NOT NULL DEFAULT '';
ALTER TABLE sso_providers ADD COLUMN second_factor_acr TEXT NOT NULL DEFAULT '';
