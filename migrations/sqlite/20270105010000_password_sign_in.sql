-- Whether console users may sign in with a password, or only break-glass admins (everyone else
-- signs in through a single sign-on provider). One row.
CREATE TABLE console_sign_in (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    password_sign_in TEXT NOT NULL CHECK (password_sign_in IN ('everyone', 'break_glass')),
    updated_at BIGINT NOT NULL
);
INSERT INTO console_sign_in (id, password_sign_in, updated_at) VALUES (1, 'everyone', 0);

-- Admin accounts that may always sign in with a password, when SSO is down.
ALTER TABLE users ADD COLUMN break_glass BOOLEAN NOT NULL DEFAULT FALSE;
