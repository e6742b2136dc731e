//! OAuth clients: RFC 7591 metadata, authentication methods, secrets, and the introspection
//! credentials of resource servers.
//!
//! # Security
//! Secrets carry 256 bits of entropy, are shown once, stored as SHA-256 and compared in constant
//! time. A slow password hash is deliberately not used: the entropy makes brute force moot, and a
//! fast hash keeps the token endpoint signing-bound.
mod metadata;
mod metadata_document;
mod model;
mod ops;
mod registration;
mod review;

pub use metadata::{
    ClientForm, ClientMetadata, MAX_CONTACTS, MAX_REDIRECT_URIS, MetadataRules, RedirectKind,
    ValidClient, check_client_jwks, parse_jwks_text, parse_redirect_uris, split_uris,
};
pub(crate) use metadata_document::trusted_for_machine_access;
pub use metadata_document::{
    MAX_METADATA_DOCUMENT_BYTES, check_metadata_document, is_metadata_document_id,
};
pub use model::*;
pub use registration::{MAX_INITIAL_TOKEN_TTL_SECS, RegistrationResponse, parse_registration_body};
pub use review::{
    CROWDED_SOURCE, INBOX_PAGE, InboxCursor, InboxFilter, InboxItem, InboxOrder, InboxPage,
    InboxQuery, MAX_INBOX_SEARCH_CHARS, MAX_REASON_CHARS, MAX_REVIEW_ITEMS, ReviewItem, RiskSignal,
    risk_of,
};
