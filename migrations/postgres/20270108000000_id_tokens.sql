-- OpenID Connect: what an authorization asked to learn about the person (`openid email
-- profile`, or NULL for no ID token) and its nonce; a token family keeps the first so that a
-- refresh answers with a new ID token too.
ALTER TABLE authorization_codes ADD COLUMN openid TEXT;
ALTER TABLE authorization_codes ADD COLUMN nonce TEXT;
ALTER TABLE token_families ADD COLUMN openid TEXT;
