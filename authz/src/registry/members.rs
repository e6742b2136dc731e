//! Who is in each ring and unit: console users, people of the realm and agents.
use super::model::{GroupKind, MAX_MEMBERS_LISTED, MemberKind, MemberView, Membership};
use super::releases::release_policy;
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::StorageError;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use portcullis_manifest::policy::PolicyInput;

impl Core {
    /// The members of a ring or unit (at most [`MAX_MEMBERS_LISTED`]), and how many members
    /// every ring and unit has.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_members(
        &self,
        p: &Principal,
        realm_name: &str,
        group: (GroupKind, &str),
    ) -> Result<Vec<MemberView>> {
        // Members are people's emails: for those who may see the realm's people.
        p.require(Permission::ViewRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let members = self
            .store
            .list_members(&realm.id, group, MAX_MEMBERS_LISTED)
            .await?;
        if members.is_empty() {
            // A group nobody has ever heard of is a typo, not an empty group.
            self.group_exists(&realm, group).await?;
        }
        Ok(members)
    }

    /// How many members each ring and unit has.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_member_counts(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<Vec<(GroupKind, String, u64)>> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.count_members(&realm.id).await?)
    }

    /// Adds a member to a ring or unit of the draft or the latest release: a console user or
    /// a person of the realm by email, an agent by name.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, group, member), `Conflict` (a member already), storage
    /// failure.
    pub async fn add_registry_member(
        &self,
        p: &Principal,
        realm_name: &str,
        group: (GroupKind, &str),
        member: (MemberKind, &str),
        meta: &RequestMeta,
    ) -> Result<Membership> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        self.group_exists(&realm, group).await?;
        let member_id = self.member_id(&realm, member).await?;
        let m = Membership {
            realm_id: realm.id.clone(),
            group_kind: group.0,
            group_id: group.1.to_owned(),
            member_kind: member.0,
            member_id,
            added_at: self.now(),
            added_by: p.email.clone(),
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REGISTRY_MEMBER_ADD,
            AuditSubject::RegistryGroup(group.0.as_str(), group.1.to_owned()),
            meta,
        );
        event.details =
            serde_json::json!({"member_kind": member.0.as_str(), "member": member.1.trim()});
        self.store
            .insert_member(&m, &event)
            .await
            .map_err(|e| crate::error::map_conflict(e, "Already a member."))?;
        Ok(m)
    }

    /// Removes a member from a ring or unit.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, member, membership), storage failure.
    pub async fn remove_registry_member(
        &self,
        p: &Principal,
        realm_name: &str,
        group: (GroupKind, &str),
        member: (MemberKind, &str),
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let member_id = self.member_id(&realm, member).await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REGISTRY_MEMBER_REMOVE,
            AuditSubject::RegistryGroup(group.0.as_str(), group.1.to_owned()),
            meta,
        );
        event.details =
            serde_json::json!({"member_kind": member.0.as_str(), "member": member.1.trim()});
        self.store
            .delete_member(&realm.id, group, (member.0, &member_id), &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => Error::not_found("membership", member.1.trim()),
                other => other.into(),
            })
    }

    /// The rings and units a member is in directly (units below them give it nothing more;
    /// units above them are added by the release's unit tree).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, member), storage failure.
    pub async fn registry_groups_of(
        &self,
        p: &Principal,
        realm_name: &str,
        member: (MemberKind, &str),
    ) -> Result<Vec<(GroupKind, String)>> {
        p.require(Permission::ViewRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let id = self.member_id(&realm, member).await?;
        Ok(self.store.groups_of(&realm.id, (member.0, &id)).await?)
    }

    pub(crate) async fn group_exists(&self, realm: &Realm, group: (GroupKind, &str)) -> Result<()> {
        let named = |p: &PolicyInput| match group.0 {
            GroupKind::Ring => p.rings.iter().any(|r| r == group.1),
            GroupKind::Unit => p.units.iter().any(|u| u.id == group.1),
        };
        let registry = self.registry_of(realm).await?;
        if named(&registry.draft) {
            return Ok(());
        }
        if let Some(latest) = self.store.latest_release(&realm.id).await?
            && named(&release_policy(&latest)?)
        {
            return Ok(());
        }
        Err(Error::not_found(
            if group.0 == GroupKind::Ring {
                "ring"
            } else {
                "unit"
            },
            group.1.chars().take(63).collect::<String>(),
        ))
    }

    /// A member's stored id from what an admin types: an email (console users, people) or an
    /// agent's name.
    pub(super) async fn member_id(
        &self,
        realm: &Realm,
        member: (MemberKind, &str),
    ) -> Result<String> {
        let typed = member.1.trim();
        let not_found = || {
            Error::not_found(
                match member.0 {
                    MemberKind::User => "console user",
                    MemberKind::Person => "person",
                    MemberKind::Agent => "agent",
                },
                typed.chars().take(254).collect::<String>(),
            )
        };
        match member.0 {
            MemberKind::User => {
                let admin = self.admin_realm().await?;
                let email = crate::accounts::Email::parse(typed).map_err(|_| not_found())?;
                Ok(self
                    .store
                    .find_user_by_email(&admin.id, &email)
                    .await?
                    .ok_or_else(not_found)?
                    .id
                    .as_str()
                    .to_owned())
            }
            MemberKind::Person => Ok(self
                .store
                .find_person_by_email(
                    &realm.id,
                    &crate::accounts::Email::parse(typed).map_err(|_| not_found())?,
                )
                .await?
                .ok_or_else(not_found)?
                .id
                .as_str()
                .to_owned()),
            MemberKind::Agent => {
                let name = crate::agents::parse_agent_name(typed).map_err(|_| not_found())?;
                Ok(self
                    .store
                    .find_agent(&realm.id, &name)
                    .await?
                    .ok_or_else(not_found)?
                    .id
                    .as_str()
                    .to_owned())
            }
        }
    }
}
