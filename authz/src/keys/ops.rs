//! Key operations: lazily created key pairs, the loaded key set of a realm, rotation.
//!
//! Each realm has, per algorithm in use, one `active` key (signs), one `next` key (published
//! ahead, so verifiers already know it when it becomes active) and `retired` keys (published until
//! the last token they signed has expired). Rotation is `active → retired`, `next → active`, new
//! `next`, in one transaction: no verification fails during or after a rotation. Unique partial
//! indexes keep at most one `active` and one `next` key per realm and algorithm, so two instances
//! creating a realm's first pair at once end with one pair.
use super::cache::RealmKeys;
use super::model::{KeyInfo, KeyState, MasterKeyCheck, StoredKey};
use super::{
    GeneratedKey, LEEWAY_SECS, MasterKey, Signer, SigningAlg, Verifier, generate, new_kid,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clock::UnixTime;
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::ids::RealmId;
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::tokens::lifetime::MAX_TOKEN_TTL_SECS;
use std::collections::HashMap;
use std::sync::Arc;

fn seal(master: &MasterKey, realm: &RealmId, kid: &str, key: &GeneratedKey) -> Result<Vec<u8>> {
    master
        .seal(&key.pkcs8, aad(realm.as_str(), kid).as_bytes())
        .map_err(Error::Internal)
}

fn aad(realm_id: &str, kid: &str) -> String {
    format!("portcullis-signing-key:{realm_id}:{kid}")
}

/// The constant sealed as the check value, and its associated data.
const CHECK_PLAINTEXT: &[u8] = b"portcullis master key check v1";
const CHECK_AAD: &[u8] = b"portcullis-master-key-check";

fn check_opens(master: &MasterKey, sealed: &[u8]) -> MasterKeyCheck {
    match master.open(sealed, CHECK_AAD) {
        Ok(plain) if plain == CHECK_PLAINTEXT => MasterKeyCheck::Matches,
        _ => MasterKeyCheck::Mismatch,
    }
}

impl Core {
    /// Checks that this instance holds the master key of the database (instances sharing one
    /// database must hold the same key). The first instance sets the check value; a database
    /// set up before check values is checked against its oldest signing key first.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn check_master_key(&self) -> Result<MasterKeyCheck> {
        let master = &self.config().master_key;
        if let Some(sealed) = self.store.master_key_check().await? {
            return Ok(check_opens(master, &sealed));
        }
        if let Some((realm, kid, sealed)) = self.store.any_sealed_signing_key().await?
            && master.open(&sealed, aad(&realm, &kid).as_bytes()).is_err()
        {
            return Ok(MasterKeyCheck::Mismatch);
        }
        let sealed = master
            .seal(CHECK_PLAINTEXT, CHECK_AAD)
            .map_err(Error::Internal)?;
        let set = self
            .store
            .init_master_key_check(&sealed, self.now())
            .await?;
        Ok(check_opens(master, &set))
    }

    /// Whether this instance can serve: the database answers and holds this instance's master
    /// key (a database without a check value yet passes; start-up sets it).
    ///
    /// # Errors
    /// When the database does not answer.
    pub async fn ready(&self) -> Result<MasterKeyCheck> {
        Ok(match self.store.master_key_check().await? {
            Some(sealed) => check_opens(&self.config().master_key, &sealed),
            None => MasterKeyCheck::Matches,
        })
    }

    fn new_stored_key(
        &self,
        realm: &Realm,
        alg: SigningAlg,
        state: KeyState,
        now: UnixTime,
    ) -> Result<StoredKey> {
        let key = generate(alg).map_err(Error::Internal)?;
        let kid = new_kid();
        let mut jwk = key.public_jwk.clone();
        jwk.insert("kid".into(), kid.clone().into());
        jwk.insert("alg".into(), alg.as_str().into());
        jwk.insert("use".into(), "sig".into());
        Ok(StoredKey {
            sealed_private_key: seal(&self.config().master_key, &realm.id, &kid, &key)?,
            kid,
            realm_id: realm.id.clone(),
            alg,
            state,
            public_jwk: serde_json::Value::Object(jwk),
            created_at: now,
            activated_at: (state == KeyState::Active).then_some(now),
            retired_at: None,
            publish_until: None,
        })
    }

    /// Creates an active and a next key for `alg` in the realm (first use of that algorithm),
    /// in one transaction. When another instance or request created them first, its pair stands
    /// and this one is dropped.
    async fn create_key_pair(&self, realm: &Realm, alg: SigningAlg) -> Result<()> {
        let now = self.now();
        let active = self.new_stored_key(realm, alg, KeyState::Active, now)?;
        let next = self.new_stored_key(realm, alg, KeyState::Next, now)?;
        let mut event = self.event(
            &realm.id,
            "system",
            action::KEY_CREATE,
            AuditSubject::Key(active.kid.to_string()),
            &RequestMeta::default(),
        );
        event.details =
            serde_json::json!({"alg": alg.as_str(), "active": active.kid, "next": next.kid});
        match self
            .store
            .insert_signing_key_pair(&active, &next, &event)
            .await
        {
            Ok(()) | Err(StorageError::Conflict(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The realm's keys, loading (and creating the key pair for `need`) when necessary.
    ///
    /// # Errors
    /// On storage failure, or `Internal` when a sealed key cannot be opened (wrong master key).
    pub(crate) async fn realm_keys(
        &self,
        realm: &Realm,
        need: Option<SigningAlg>,
    ) -> Result<Arc<RealmKeys>> {
        let now = self.now();
        let generation = self.store.generation();
        if let Some(keys) = self.keyring.get(&realm.id)
            && keys.is_current(generation, now)
            && need.is_none_or(|alg| keys.signers.contains_key(&alg))
        {
            return Ok(keys);
        }
        let mut stored = self.store.list_signing_keys(&realm.id).await?;
        if let Some(alg) = need
            && !stored
                .iter()
                .any(|k| k.alg == alg && k.state == KeyState::Active)
        {
            self.create_key_pair(realm, alg).await?;
            stored = self.store.list_signing_keys(&realm.id).await?;
        }
        let mut signers = HashMap::new();
        let mut verifiers = HashMap::new();
        let mut published = Vec::new();
        for k in stored.iter().filter(|k| k.is_published(now)) {
            if k.state == KeyState::Active {
                let pkcs8 = self
                    .config()
                    .master_key
                    .open(
                        &k.sealed_private_key,
                        aad(realm.id.as_str(), &k.kid).as_bytes(),
                    )
                    .map_err(Error::Internal)?;
                signers.insert(
                    k.alg,
                    Arc::new(Signer::from_pkcs8(&k.kid, k.alg, &pkcs8).map_err(Error::Internal)?),
                );
            }
            verifiers.insert(
                k.kid.clone(),
                Verifier::from_jwk(&k.public_jwk).map_err(Error::Internal)?,
            );
            published.push(k.public_jwk.clone());
        }
        let keys = Arc::new(RealmKeys {
            loaded_at: now,
            // The generation read before loading: a change committed meanwhile reloads again.
            generation,
            signers,
            verifiers,
            jwks: serde_json::json!({ "keys": published }),
        });
        self.keyring.put(&realm.id, keys.clone());
        Ok(keys)
    }

    /// Rotates every algorithm's keys in a realm (creating the default ES256 pair first if the
    /// realm has none). Returns the new active key ids.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn rotate_signing_keys(
        &self,
        p: &Principal,
        realm_name: &str,
        meta: &RequestMeta,
    ) -> Result<Vec<String>> {
        p.require(Permission::ManageKeys)?;
        let actor = p.email.as_str();
        let realm = self.find_realm(realm_name).await?;
        let mut stored = self.store.list_signing_keys(&realm.id).await?;
        if !stored.iter().any(|k| k.state == KeyState::Active) {
            self.create_key_pair(&realm, SigningAlg::ES256).await?;
            stored = self.store.list_signing_keys(&realm.id).await?;
        }
        let mut algs: Vec<SigningAlg> = stored
            .iter()
            .filter(|k| k.state == KeyState::Active)
            .map(|k| k.alg)
            .collect();
        algs.sort_by_key(|a| a.as_str());
        algs.dedup();
        let now = self.now();
        let mut activated = Vec::new();
        for alg in algs {
            let promoted = stored
                .iter()
                .find(|k| k.alg == alg && k.state == KeyState::Next)
                .map(|k| k.kid.clone())
                .ok_or_else(|| {
                    Error::Internal(format!("realm {realm_name} has no next {alg} key"))
                })?;
            let new_next = self.new_stored_key(&realm, alg, KeyState::Next, now)?;
            let mut event = self.event(
                &realm.id,
                actor,
                action::KEY_ROTATE,
                AuditSubject::Realm(realm.name.to_string()),
                meta,
            );
            event.details = serde_json::json!({"alg": alg.as_str(), "activated": promoted, "next": new_next.kid});
            self.store
                .rotate_signing_keys(
                    &realm.id,
                    alg,
                    &new_next,
                    now + MAX_TOKEN_TTL_SECS + LEEWAY_SECS,
                    &event,
                )
                .await
                .map_err(|e| match e {
                    StorageError::NotFound => {
                        Error::Conflict("Keys changed concurrently; try again.".into())
                    }
                    other => Error::Storage(other),
                })?;
            activated.push(promoted);
        }
        Ok(activated)
    }

    /// The realm's active signer for `alg` (creating the key pair if needed), for the signing
    /// benchmark of `portcullis keys bench-sign`.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    ///
    /// # Security
    /// Hands out a private-key signer; only operators (who hold the master key anyway) may.
    pub async fn signer_for_benchmark(
        &self,
        p: &Principal,
        realm_name: &str,
        alg: SigningAlg,
    ) -> Result<Arc<Signer>> {
        p.require(Permission::ManageKeys)?;
        let realm = self.find_realm(realm_name).await?;
        let keys = self.realm_keys(&realm, Some(alg)).await?;
        keys.signer(alg)
            .cloned()
            .ok_or_else(|| Error::Internal(format!("no active {alg} key")))
    }

    /// The realm's signing keys (public facts only), newest first.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn list_signing_keys(&self, p: &Principal, realm_name: &str) -> Result<Vec<KeyInfo>> {
        p.require(Permission::ManageKeys)?;
        let realm = self.find_realm(realm_name).await?;
        let now = self.now();
        Ok(self
            .store
            .list_signing_keys(&realm.id)
            .await?
            .iter()
            .map(|k| KeyInfo {
                kid: k.kid.clone(),
                alg: k.alg,
                state: k.state.as_str(),
                published: k.is_published(now),
                created_at: k.created_at,
                activated_at: k.activated_at,
                retired_at: k.retired_at,
                publish_until: k.publish_until,
            })
            .collect())
    }
}
