-- A client's token epoch: access tokens carry the epoch they were minted in and are alive only
-- while it is the client's. Leaving `approved` (revoked, expired) starts a new one, so the
-- tokens of a revoked client stay dead when an administrator restores it.
ALTER TABLE clients ADD COLUMN token_epoch BIGINT NOT NULL DEFAULT 0;
-- Clients revoked or expired before epochs existed: their tokens (epoch 0) stay dead if an
-- administrator restores them.
UPDATE clients SET token_epoch = 1 WHERE review_state IN ('revoked', 'expired');
